# llmdlua — GNU make. `make help` lists the targets.
#
# Targets that build first make sure the Debian packages in vendor/ are installed
# (scripts/install-deps.sh, idempotent), then run the real work in a sub-make so that
# pkg-config sees the freshly installed libraries.

VERSION    := 0.1.0
PREFIX     ?= /usr/local
PKG_CONFIG ?= pkg-config
CC         ?= cc
CFLAGS     ?= -O2 -g
V          ?= 0

ifeq ($(V),1)
Q :=
else
Q := @
endif

PKGS      := lua5.4 yaml-0.1 libcurl zlib
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# libcurl: headers only; lhttp.c loads the library on first use (dlopen)
PKG_LIBS  := $(shell $(PKG_CONFIG) --libs yaml-0.1 zlib 2>/dev/null)
LUA_LIBDIR := $(shell $(PKG_CONFIG) --variable=libdir lua5.4 2>/dev/null)
# Lua and LuaFileSystem are linked statically: the binary does not depend on the
# Lua shared library, and lfs is registered like any other built-in module.
LUA_A     := $(LUA_LIBDIR)/liblua5.4.a
LFS_A     := $(firstword $(wildcard $(LUA_LIBDIR)/liblua5.4-filesystem.a /usr/lib/liblua5.4-filesystem.a))

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wwrite-strings -Wundef -Wformat=2 -Wvla -Wpointer-arith -Wcast-qual
BASE_CFLAGS := -std=c11 -pthread -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
        -DLLMDLUA_VERSION='"$(VERSION)"' $(WARN) -MMD -MP -Isrc $(PKG_CFLAGS)
LDLIBS := $(LFS_A) $(LUA_A) $(PKG_LIBS) -lm -ldl -pthread

SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Lua-free cores (unit-tested directly) and the Lua bindings / host.
CORE_SRC := src/json.c src/proc.c src/stats.c src/scan.c src/prom.c src/closest.c
HOST_SRC := src/main.c src/lutil.c src/ljson.c src/lyaml.c src/lproc.c src/lhttp.c src/lstats.c src/lscan.c src/lprom.c \
            src/precompiled.c
SRC      := $(HOST_SRC) $(CORE_SRC)
UNIT     := $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_*.c))

# $(1) = build folder, $(2) = extra flags
objs = $(patsubst src/%.c,$(1)/%.o,$(SRC))

.PHONY: all deps deps-dev test check valgrind lint bench fuzz install clean help demo \
        _all _unit _test _check _valgrind _lint _fuzz_short _demo

all: deps
	$(Q)$(MAKE) --no-print-directory _all

deps:
	$(Q)scripts/install-deps.sh test

deps-dev:
	$(Q)scripts/install-deps.sh dev

_all: llmdlua

# llmdlua's own Lua files, compiled to bytecode and linked in (src/precompiled.h: a file
# still holding the text it was compiled from loads from its bytecode, any other from its
# text). A first build without them (build/llmdlua0) compiles them: its Lua is the one the
# binary links, so the bytecode format is this binary's.
LUA_FILES := $(sort $(wildcard lua/*.lua lua/*/*.lua lua/*/*/*.lua))

build/llmdlua0: $(call objs,build) build/precompiled_none.o
	@echo "LINK $@"
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

build/precompiled_data.c: scripts/precompile.lua $(LUA_FILES) $(LUA_A) | build/llmdlua0
	@echo "PRECOMPILE lua/"
	$(Q)build/llmdlua0 scripts/precompile.lua $@ $(LUA_FILES)

build/precompiled_data.o: build/precompiled_data.c
	@echo "CC $<"
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) -c -o $@ $<

llmdlua: $(call objs,build) build/precompiled_data.o
	@echo "LINK $@"
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

build/%.o: src/%.c
	@mkdir -p $(@D)
	@echo "CC $<"
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) -c -o $@ $<

# Sanitizer build: the same sources, objects in build/asan/. lua/ and templates/ are
# linked beside the binary so it finds its install root like the real one does.
build/asan/precompiled_data.o: build/precompiled_data.c
	@mkdir -p $(@D)
	@echo "CC(asan) $<"
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(SAN_FLAGS) -c -o $@ $<

build/asan/llmdlua: $(call objs,build/asan) build/asan/precompiled_data.o
	@echo "LINK $@"
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ $(LDLIBS)
	$(Q)ln -sfn ../../lua build/asan/lua
	$(Q)ln -sfn ../../templates build/asan/templates

build/asan/%.o: src/%.c
	@mkdir -p $(@D)
	@echo "CC(asan) $<"
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(SAN_FLAGS) -c -o $@ $<

# C unit tests: one program per core, linked with the Lua-free objects only. Each is
# compiled and linked in one step, so -MMD writes build/tests/test_X.d naming the binary
# and every header its source includes. The compiler gets the source and the objects,
# never $^: once that .d is read, the headers are prerequisites too, and a header on the
# command line is compiled as one more input whose dependencies overwrite the test's.
build/tests/test_%: tests/unit/test_%.c $(patsubst src/%.c,build/%.o,$(CORE_SRC))
	@mkdir -p $(@D)
	@echo "CC $<"
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) -Itests/unit -o $@ $< $(filter %.o,$^) -lz -lm

build/asan/tests/test_%: tests/unit/test_%.c $(patsubst src/%.c,build/asan/%.o,$(CORE_SRC))
	@mkdir -p $(@D)
	@echo "CC(asan) $<"
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(SAN_FLAGS) -Itests/unit -o $@ $< $(filter %.o,$^) -lz -lm

test: deps
	$(Q)$(MAKE) --no-print-directory _test

_test: llmdlua $(addprefix build/tests/,$(UNIT))
	$(Q)tests/run.sh ./llmdlua build/tests

check: deps-dev
	$(Q)$(MAKE) --no-print-directory _check

_check: llmdlua build/asan/llmdlua $(addprefix build/asan/tests/,$(UNIT)) _fuzz_short
	$(Q)ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	    tests/run.sh build/asan/llmdlua build/asan/tests

# libFuzzer targets (clang), with AddressSanitizer and UBSan, on the Lua-free cores.
FUZZ_CFLAGS := -std=c11 -pthread -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g -O1 -Isrc \
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_TIME   ?= 60
# Compiled apart (the cores once for all three targets), each object with -MMD -MP, so a
# header edit rebuilds what includes it: one compiler call over several sources writes
# one .d for them all (clang: the last source's), and the targets listed no src/*.h.
FUZZ_OBJ := $(patsubst src/%.c,build/fuzz/obj/%.o,$(CORE_SRC))
# kept after the link (make deletes objects that only a pattern rule names)
.SECONDARY: $(FUZZ_OBJ) $(patsubst tests/fuzz/%.c,build/fuzz/obj/%.o,$(wildcard tests/fuzz/fuzz_*.c))
build/fuzz/obj/%.o: src/%.c
	@mkdir -p $(@D)
	@echo "CLANG $<"
	$(Q)clang $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

build/fuzz/obj/fuzz_%.o: tests/fuzz/fuzz_%.c
	@mkdir -p $(@D)
	@echo "CLANG $<"
	$(Q)clang $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

build/fuzz/fuzz_%: build/fuzz/obj/fuzz_%.o $(FUZZ_OBJ)
	@echo "LINK $@"
	$(Q)clang $(FUZZ_CFLAGS) -o $@ $^ -lz -lm

# A short, bounded run for `make check`: each target from its seeds, a few seconds.
_fuzz_short: build/fuzz/fuzz_json build/fuzz/fuzz_scan build/fuzz/fuzz_prom
	@mkdir -p build/fuzz/corpus-json build/fuzz/corpus-scan build/fuzz/corpus-prom
	$(Q)build/fuzz/fuzz_json -runs=30000 -max_len=512 build/fuzz/corpus-json tests/fuzz/seeds/json 2>build/fuzz/json.log || \
	    { tail -30 build/fuzz/json.log; exit 1; }
	$(Q)build/fuzz/fuzz_scan -runs=30000 -max_len=512 build/fuzz/corpus-scan tests/fuzz/seeds/scan 2>build/fuzz/scan.log || \
	    { tail -30 build/fuzz/scan.log; exit 1; }
	$(Q)build/fuzz/fuzz_prom -runs=30000 -max_len=1024 build/fuzz/corpus-prom tests/fuzz/seeds/prom 2>build/fuzz/prom.log || \
	    { tail -30 build/fuzz/prom.log; exit 1; }
	@echo "fuzz (short): 30000 runs of each target, no finding"

fuzz: deps-dev
	$(Q)$(MAKE) --no-print-directory build/fuzz/fuzz_json build/fuzz/fuzz_scan build/fuzz/fuzz_prom
	@mkdir -p build/fuzz/corpus-json build/fuzz/corpus-scan build/fuzz/corpus-prom
	build/fuzz/fuzz_json -max_total_time=$(FUZZ_TIME) build/fuzz/corpus-json tests/fuzz/seeds/json
	build/fuzz/fuzz_scan -max_total_time=$(FUZZ_TIME) build/fuzz/corpus-scan tests/fuzz/seeds/scan
	build/fuzz/fuzz_prom -max_total_time=$(FUZZ_TIME) build/fuzz/corpus-prom tests/fuzz/seeds/prom

valgrind: deps-dev
	$(Q)$(MAKE) --no-print-directory _valgrind

_valgrind: llmdlua $(addprefix build/tests/,$(UNIT))
	$(Q)VALGRIND="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect" \
	    tests/run.sh ./llmdlua build/tests quick

# `make lint` also compiles every C file for aarch64 (Grace, Graviton, Ampere hosts) with
# the same warnings: the portable paths there have no SSE2. The library headers are the
# host's (-idirafter: only what the cross compiler's own headers lack).
CROSS_CC      ?= aarch64-linux-gnu-gcc
HOST_TRIPLET  := $(shell gcc -print-multiarch 2>/dev/null)

lint: deps-dev
	$(Q)$(MAKE) --no-print-directory _lint

_lint:
	$(Q)clang-format --dry-run -Werror src/*.c src/*.h tests/unit/*.c tests/unit/*.h
	$(Q)cppcheck -q --enable=warning,performance,portability --error-exitcode=1 \
	    --inline-suppr -D__GNUC__ -Isrc $(SRC)
	$(Q)clang-tidy --quiet $(SRC) -- $(BASE_CFLAGS) 2>/dev/null
	$(Q)luacheck -q lua tests scripts
	$(Q)shellcheck scripts/*.sh tests/*.sh tests/cli/*.sh tests/make/*.sh .ci/run
	$(Q)for f in $(SRC) tests/unit/*.c; do \
	    $(CROSS_CC) $(filter-out -MMD -MP -I/usr/include/$(HOST_TRIPLET),$(BASE_CFLAGS)) -Itests/unit \
	        -idirafter /usr/include/$(HOST_TRIPLET) -O2 -c -o /dev/null "$$f" || exit 1; \
	done

# The main job on bundled real data: two runs in, a comparison report out.
demo: deps
	$(Q)$(MAKE) --no-print-directory _demo

_demo: llmdlua
	$(Q)DEMO_DIR="$(DEMO_DIR)" scripts/demo.sh ./llmdlua

bench: deps-dev
	$(Q)$(MAKE) --no-print-directory _all
	$(Q)scripts/bench.sh ./llmdlua

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/llmdlua
	install -m 755 llmdlua $(DESTDIR)$(PREFIX)/bin/llmdlua
	cp -R lua templates $(DESTDIR)$(PREFIX)/share/llmdlua/

clean:
	rm -rf build llmdlua

help:
	@echo "make            build ./llmdlua (installs missing Debian packages first)"
	@echo "make deps       install the Debian packages listed in vendor/"
	@echo "make demo       compare two bundled real runs and print the report"
	@echo "make test       build and run every test (C unit, Lua, command line)"
	@echo "make check      every test again under AddressSanitizer + UndefinedBehaviorSanitizer"
	@echo "make valgrind   C unit tests and the quick Lua tests under valgrind"
	@echo "make lint       clang-format, cppcheck, clang-tidy, luacheck, shellcheck"
	@echo "make bench      speed and memory against the tools users run and the read() floor"
	@echo "make install PREFIX=/usr/local   binary to bin/, lua/ and templates/ to share/llmdlua/"
	@echo "make clean      remove build products"

-include $(wildcard build/*.d build/asan/*.d build/tests/*.d build/asan/tests/*.d build/fuzz/obj/*.d)
