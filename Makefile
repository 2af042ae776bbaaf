# skit: `make demo` and `make test` are the whole set-up on a fresh Debian
# machine. Both install the dependencies first (scripts/install-deps.sh is
# idempotent and quick when everything is present).

# cmake --build runs make inside make: without this, every sub-make prints
# "make[N]: Entering directory" twice, hundreds of lines before a test.
MAKEFLAGS += --no-print-directory

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
FUZZ ?=
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX     ?= /usr/local
CMAKE_FLAGS ?=

.PHONY: all deps build asan test test-release test-asan demo install bench format format-check clean fuzz fuzz-build

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DSKIT_WERROR=ON -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DSKIT_WERROR=ON \
		-DSKIT_SANITIZE=address,undefined $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j$(JOBS)

test-release: build
	@cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

test-asan: asan
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j$(JOBS)

# The unit and CLI tests, then the same tests under ASan+UBSan.
test: test-release test-asan

# The libFuzzer harnesses of fuzz/ (clang, ASan+UBSan), each run for
# FUZZ_SECONDS; FUZZ="lock sse" runs only those (docs/fuzzing.md).
fuzz-build: deps
	@cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSKIT_FUZZ=ON \
		-DSKIT_BUILD_TESTS=OFF -DSKIT_SANITIZE=address,undefined \
		$(CMAKE_FLAGS) >/dev/null
	@cmake --build $(FUZZ_BUILD) -j$(JOBS)

fuzz: fuzz-build
	@FUZZ_JOBS=$(FUZZ_JOBS) scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ)

# The demo builds quietly: the build's output is shown only when it fails.
demo: deps
	@mkdir -p $(BUILD) && cmake -S . -B $(BUILD) \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSKIT_WERROR=ON \
		-DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS) \
		>$(BUILD)/demo-build.log 2>&1 && \
		cmake --build $(BUILD) -j$(JOBS) >>$(BUILD)/demo-build.log 2>&1 \
		|| { cat $(BUILD)/demo-build.log; exit 1; }
	@scripts/demo.sh $(BUILD)/skit

install: build
	@cmake --install $(BUILD)

bench: build
	@scripts/bench.sh $(BUILD)

format:
	@clang-format -i $$(git ls-files '*.c' '*.h' '*.cpp')

format-check:
	@clang-format --dry-run -Werror $$(git ls-files '*.c' '*.h' '*.cpp')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
