# Makefile - driven by build.sh (which finds LLVM and installs dependencies).
# Every libtile/*.c and libtile/PHASE/*.c goes into libtile.a (includes are
# written from libtile/, as "ir/ir.h"), every codegen/*.c into tilec, every
# tests/test_*.c becomes a test program built with ASan and UBSan;
# tools/tile-tune/tile_tune.c (tile-tune, linked on the target with a blob's
# generated C: docs/TUNING.md) is compiled against tile.h, warnings as errors;
# tilec-san (ASan, UBSan) and tilec-tsan (ThreadSanitizer, for compile
# -j's threads) are the tests' tilec.

LLVM_CONFIG ?= llvm-config-19
BUILD ?= build
CC ?= cc
WARN = -Wall -Wextra -Werror
OPT ?= -O2 -g
LLVM_CFLAGS := $(shell $(LLVM_CONFIG) --cflags 2>/dev/null)
LLVM_LIBS := $(shell $(LLVM_CONFIG) --ldflags 2>/dev/null) $(shell $(LLVM_CONFIG) --libs 2>/dev/null)
CFLAGS_LIB = -std=c11 $(OPT) $(WARN) -D_GNU_SOURCE -Ilibtile $(LLVM_CFLAGS)
SAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
TSAN = -fsanitize=thread -fno-omit-frame-pointer
LIBS = $(LLVM_LIBS) -lz -lpthread -ldl -lm
# tilec itself links LLVM statically when build.sh finds the static
# libraries: loading the shared libLLVM costs every tilec run ~15 ms.
TILEC_LLVM_LIBS ?= $(LLVM_LIBS)

LIB_SRC := $(wildcard libtile/*.c libtile/*/*.c)
LIB_HDR := $(wildcard libtile/*.h libtile/*/*.h)
TILEC_SRC := $(wildcard codegen/*.c)
TEST_SRC := $(wildcard tests/test_*.c)
LOADER_SRC := $(sort $(wildcard loader/*))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
LIB_SAN_OBJ := $(LIB_SRC:%.c=$(BUILD)/san/%.o)
TILEC_OBJ := $(TILEC_SRC:%.c=$(BUILD)/obj/%.o)
TILEC_SAN_OBJ := $(TILEC_SRC:%.c=$(BUILD)/san/%.o)
TSAN_OBJ := $(LIB_SRC:%.c=$(BUILD)/tsan/%.o) $(TILEC_SRC:%.c=$(BUILD)/tsan/%.o)
TESTS := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TILE_TUNE_OBJ := $(BUILD)/tools/tile-tune/tile_tune.o

.PHONY: all tests clean
all: $(BUILD)/libtile.a $(BUILD)/tilec $(TILE_TUNE_OBJ)
tests: $(TESTS) $(BUILD)/tilec-san $(BUILD)/tilec-tsan

$(BUILD)/obj/%.o: %.c $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_LIB) -c $< -o $@

$(BUILD)/san/%.o: %.c $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_LIB) $(SAN) -c $< -o $@

$(BUILD)/tsan/%.o: %.c $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_LIB) $(TSAN) -c $< -o $@

# tilec compiles the loader in (codegen/tile_impl.c) and shares codegen/*.h
$(TILEC_OBJ) $(TILEC_SAN_OBJ) $(TILEC_SRC:%.c=$(BUILD)/tsan/%.o): tile.h $(wildcard codegen/*.h)

$(BUILD)/libtile.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libtile-san.a: $(LIB_SAN_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/tilec: $(TILEC_OBJ) $(BUILD)/libtile.a
	$(CC) $(OPT) -o $@ $(TILEC_OBJ) $(BUILD)/libtile.a $(TILEC_LLVM_LIBS) -lz -lpthread -ldl -lm

$(BUILD)/tilec-san: $(TILEC_SAN_OBJ) $(BUILD)/libtile-san.a
	$(CC) $(OPT) $(SAN) -o $@ $(TILEC_SAN_OBJ) $(BUILD)/libtile-san.a $(LIBS)

$(BUILD)/tilec-tsan: $(TSAN_OBJ)
	$(CC) $(OPT) $(TSAN) -o $@ $(TSAN_OBJ) $(LIBS)

# tile-tune needs a blob to link (TILE_TUNE_BLOB names it): the build
# checks that it compiles; ./build.sh install installs its source.
$(TILE_TUNE_OBJ): tools/tile-tune/tile_tune.c tile.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(OPT) $(WARN) -I. -DTILE_TUNE_BLOB=tile_tune_blob -c $< -o $@

# Tests include tile.h and may use libtile's internals.
$(BUILD)/tests/%: tests/%.c tile.h $(BUILD)/libtile-san.a $(wildcard tests/*.h) $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_LIB) $(SAN) -I. -Itests $< -o $@ $(BUILD)/libtile-san.a $(LIBS)

clean:
	rm -rf $(BUILD)
