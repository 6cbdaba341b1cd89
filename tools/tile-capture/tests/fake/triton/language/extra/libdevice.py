"""triton.language.extra.libdevice: its functions only appear in kernel bodies."""
