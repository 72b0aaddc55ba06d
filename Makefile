# The two commands: `make demo` and `make test`. Both bootstrap whatever is missing, then run.
# Idempotent: each step leaves a stamp and is skipped when its inputs have not changed.
# For the edit-test loop: `make test-fast` (the suite without tests marked slow), `make lint`, `make format`.

SHELL := /bin/bash
VENV  ?= .venv
PY    := $(VENV)/bin/python
STAMP := $(VENV)/.stamps
# Model Explorer and its .pte adapter need flatbuffers>25.9, tosa-tools pins 25.2.10: a venv of their own, which
# `mcu-export explore` and tests/test_explore.py find (mcu_export/explore.py).
EXPLORER_VENV  ?= .venv-explorer
EXPLORER_STAMP := $(EXPLORER_VENV)/.stamps
EXPLORER_PACKAGES := ai-edge-model-explorer pte-adapter-model-explorer
TORCH_PIN := torch==2.13.0

APT_PACKAGES := cmake ninja-build gcc g++ gcc-arm-none-eabi libnewlib-arm-none-eabi \
                qemu-system-arm qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
                clang-16 lld-16 clang-format-16 libclang-rt-16-dev chromium
APT_PROBES := cmake ninja arm-none-eabi-gcc qemu-system-arm qemu-aarch64 aarch64-linux-gnu-gcc clang-16 ld.lld-16 \
              clang-format-16 chromium

# Same major version as clang-16: another clang-format may lay out the same file differently.
CLANG_FORMAT := clang-format-16
# Each file takes the nearest .clang-format: the top-level one, or cmsis_nn_kernels/'s (CMSIS-NN's style).
C_SOURCES = $(shell find runtime_c boards fvp cmsis_nn_kernels -name '*.[ch]' | sort)

.PHONY: demo test test-fast lint format bench bench-kernels mobile fuzz bootstrap apt venv clean

demo: bootstrap
	$(PY) -m mcu_export.demo

# pytest exits 5 when no test was selected: test and test-fast fail then, as on any non-zero exit.
# One worker per core (pytest-xdist), each test module on one worker (--dist loadscope): a module's fixtures
# (exported models, built firmware) are made once. QEMU runs count instructions (-icount), so a busy neighbour
# changes no figure, only wall time, which the runners' timeouts leave room for.
test: bootstrap
	$(PY) -m pytest -q -n auto --dist loadscope tests

# The edit-test loop: the tests not marked slow, one worker per core, modules kept whole as in `test`: with tests
# dealt one by one, both workers made most modules' exported models (4 min 14 s of CPU against 3 min 12 s on 2 cores).
test-fast: bootstrap
	$(PY) -m pytest -q -m "not slow" -n auto --dist loadscope tests

# Every check runs, so one pass reports all of them; any failure fails the target.
lint: bootstrap
	@status=0; \
	$(PY) -m ruff check . || status=1; \
	$(PY) -m ruff format --check . || status=1; \
	$(PY) -m mypy mcu_export || status=1; \
	$(CLANG_FORMAT) --dry-run --Werror $(C_SOURCES) || status=1; \
	exit $$status

# `ruff format` leaves import order to the linter's isort rules (I).
format: bootstrap
	$(PY) -m ruff check --select I --fix .
	$(PY) -m ruff format .
	@echo "$(CLANG_FORMAT) -i (every .c and .h under runtime_c boards fvp cmsis_nn_kernels)"
	@$(CLANG_FORMAT) -i $(C_SOURCES)

bench: bootstrap
	$(PY) -m mcu_export.bench

# Per int8 layer (conv, depthwise, fully connected; mcu_export/bench_kernels_layers.py) on corstone-300, mps2-an505
# and mps2-an386 under QEMU: instructions of the kernel call, per MAC, code bytes of the kernel; outputs checked bit
# for bit against the host runtime. CMSIS_NN=PATH (a CMSIS-NN source tree) adds Arm's figures and ours/Arm's.
# Then the same layers in fp32 (table kernels_fp32, the portable kernels).
bench-kernels: bootstrap
	$(PY) -m mcu_export.bench_kernels $(if $(CMSIS_NN),--cmsis-nn $(CMSIS_NN))

# The runtime core as libmx_runtime.a for Android (aarch64, armv7a) and iOS (device, simulator): clang-16 alone.
mobile: bootstrap
	$(PY) -m mcu_export.mobile build/mobile

# libFuzzer over the runtime and every kernel (runtime_c/fuzz/): builds mx_fuzz, exports the seed corpus when
# it is missing (out/fuzz/corpus), then FUZZ_RUNS executions in fork mode (FUZZ_JOBS processes), findings in
# out/fuzz/findings. tests/test_fuzz.py runs a short fixed run and the saved regressions.
FUZZ_RUNS ?= 10000000
FUZZ_JOBS ?= 1
fuzz: bootstrap
	$(PY) tests/support/fuzz_run.py --runs $(FUZZ_RUNS) --jobs $(FUZZ_JOBS)

bootstrap: apt venv

# apt: only when a tool is missing (CI and fresh machines); needs root, as on Debian CI.
apt:
	@missing=""; for t in $(APT_PROBES); do command -v $$t >/dev/null || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then \
	  echo "bootstrap: installing Debian packages (missing:$$missing)"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(APT_PACKAGES) >/dev/null; \
	fi

# torch is installed first and explicitly: no dependency range may pull a CUDA build.
venv: $(STAMP)/deps $(EXPLORER_STAMP)/deps

$(STAMP)/torch:
	@test -x $(PY) || python3 -m venv $(VENV)
	@echo "bootstrap: installing $(TORCH_PIN) (CPU) into $(VENV)"
	$(PY) -m pip install -q --disable-pip-version-check $(TORCH_PIN)
	@mkdir -p $(STAMP) && touch $@

$(STAMP)/deps: $(STAMP)/torch pyproject.toml
	@echo "bootstrap: pip install -e .[dev,interop]"
	$(PY) -m pip install -q --disable-pip-version-check $(TORCH_PIN) -e '.[dev,interop]'
	@touch $@

# Remade when the package list above changes (the stamp holds it).
$(EXPLORER_STAMP)/deps: Makefile
	@if [ "$$(cat $@ 2>/dev/null)" != "$(EXPLORER_PACKAGES)" ]; then \
	  test -x $(EXPLORER_VENV)/bin/python || python3 -m venv $(EXPLORER_VENV); \
	  echo "bootstrap: pip install $(EXPLORER_PACKAGES) into $(EXPLORER_VENV)"; \
	  $(EXPLORER_VENV)/bin/python -m pip install -q --disable-pip-version-check $(EXPLORER_PACKAGES) && \
	  mkdir -p $(EXPLORER_STAMP) && echo "$(EXPLORER_PACKAGES)" > $@; \
	else touch $@; fi

clean:
	rm -rf build out .pytest_cache
