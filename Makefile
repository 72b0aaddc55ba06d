# The two commands: `make demo` and `make test`. Both bootstrap whatever is missing, then run.
# Idempotent: each step leaves a stamp and is skipped when its inputs have not changed.

SHELL := /bin/bash
VENV  ?= .venv
PY    := $(VENV)/bin/python
STAMP := $(VENV)/.stamps
TORCH_PIN := torch==2.13.0

APT_PACKAGES := cmake ninja-build gcc g++ gcc-arm-none-eabi libnewlib-arm-none-eabi \
                qemu-system-arm qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
                clang-16 lld-16
APT_PROBES := cmake ninja arm-none-eabi-gcc qemu-system-arm qemu-aarch64 aarch64-linux-gnu-gcc clang-16 ld.lld-16

.PHONY: demo test bench bootstrap apt venv clean

demo: bootstrap
	$(PY) -m mcu_export.demo

test: bootstrap
	$(PY) -m pytest -q tests

bench: bootstrap
	$(PY) -m mcu_export.bench

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
venv: $(STAMP)/deps

$(STAMP)/torch:
	@test -x $(PY) || python3 -m venv $(VENV)
	@echo "bootstrap: installing $(TORCH_PIN) (CPU) into $(VENV)"
	$(PY) -m pip install -q --disable-pip-version-check $(TORCH_PIN)
	@mkdir -p $(STAMP) && touch $@

$(STAMP)/deps: $(STAMP)/torch pyproject.toml
	@echo "bootstrap: pip install -e .[dev,interop]"
	$(PY) -m pip install -q --disable-pip-version-check $(TORCH_PIN) -e '.[dev,interop]'
	@touch $@

clean:
	rm -rf build out .pytest_cache
