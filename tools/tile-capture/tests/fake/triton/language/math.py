"""triton.language.math: its functions only appear in kernel bodies."""
