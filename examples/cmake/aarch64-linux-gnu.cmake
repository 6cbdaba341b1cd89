# aarch64-linux-gnu.cmake - cross-compiling for Jetson (Orin, Thor) from an
# x86-64 Debian/Ubuntu machine with gcc-aarch64-linux-gnu:
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=aarch64-linux-gnu.cmake \
#         -DCMAKE_PREFIX_PATH=/opt/tile -DTILE_ARCHS="orin;thor"
# tilec (tile::tilec) is the build machine's; what it writes is plain C.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
