# kernel.mk - the notifwait test kernel and the VM that runs tests in it.
#
# Included by the top-level Makefile (include kernel-patches/kernel.mk),
# or used alone: make -f kernel-patches/kernel.mk TARGET. Self-contained:
# every variable it defines starts with KERNEL_ or VM_.
#
#   make kernel        extract linux-source-6.1 into $(KERNEL_CACHE), apply
#                      the series, build bzImage (with BTF) and the seccomp
#                      selftests; a no-op while series, config and scripts
#                      are unchanged. KERNEL_FLAVOR=vanilla: no patches.
#   make kernel-deps   apt-get install what the above needs, if missing
#   make vmlinux-seed  vmlinux/x86/vmlinux-6.1-seed.h from the kernel's BTF
#   make vm-test       boot it, run the selftests, notifwait's suite
#                      ($(NW_GUEST_SUITE)), BTF and fentry checks
#   make vm-run CMD='...'   run one command in the guest, exit with its status
#   make vm-shell      interactive shell on the guest's serial console
#
# See kernel-patches/README.md.

KERNEL_MK_DIR := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
KERNEL_ROOT := $(patsubst %/,%,$(dir $(KERNEL_MK_DIR)))

KERNEL_TARBALL ?= /usr/src/linux-source-6.1.tar.xz
KERNEL_CACHE ?= /var/cache/notifwait
KERNEL_FLAVOR ?= seed
KERNEL_JOBS ?= $(shell nproc)
KERNEL_PRUNE ?= 1
KERNEL_CONFIG := $(KERNEL_MK_DIR)/notifwait.config
KERNEL_SERIES := $(KERNEL_MK_DIR)/series
KERNEL_BUILD_SCRIPT := $(KERNEL_MK_DIR)/build-kernel.sh

# What the guest checks differs: the seed kernel has the bracket in BTF
# (fentry attaches to it); unpatched, gcc clones it (.constprop.0), BTF
# lacks it and notifwait's exact choice is a kprobe on the clone.
ifeq ($(KERNEL_FLAVOR),seed)
KERNEL_PATCHES := $(addprefix $(KERNEL_MK_DIR)/,$(shell sed -e 's/\#.*//' $(KERNEL_SERIES)))
KERNEL_REQUIRE_BTF_FUNC := 1
VM_BTF_EXPECT := func
VM_FENTRY_FUNCS ?= seccomp_do_user_notification wait_for_completion_interruptible wait_for_completion_killable
VM_BACKENDS ?= fentry tracepoint
else ifeq ($(KERNEL_FLAVOR),vanilla)
KERNEL_PATCHES :=
KERNEL_REQUIRE_BTF_FUNC :=
VM_BTF_EXPECT := clone
VM_FENTRY_FUNCS ?= __seccomp_filter wait_for_completion_interruptible wait_for_completion_killable
VM_BACKENDS ?= kprobe fentry tracepoint
else
$(error KERNEL_FLAVOR must be seed or vanilla, not '$(KERNEL_FLAVOR)')
endif

# The cache key hashes the source tarball, which kernel-deps installs. On a
# machine without it, it is installed before the key is computed (make
# restarts after remaking an included makefile): else the first build's key
# would lack it and the next make would build the same kernel again.
KERNEL_SOURCE_MK := $(KERNEL_CACHE)/source.mk
ifneq ($(filter kernel vm-test vm-run vm-shell vmlinux-seed,$(MAKECMDGOALS)),)
include $(KERNEL_SOURCE_MK)
endif

# The cache key: everything that goes into the kernel tree and its build.
KERNEL_HASH := $(shell { echo $(KERNEL_FLAVOR); \
	echo '$(KERNEL_SOURCE_ID)'; \
	cat $(KERNEL_CONFIG) $(KERNEL_BUILD_SCRIPT) $(KERNEL_SERIES) $(KERNEL_PATCHES); } | \
	sha256sum | cut -c1-12)
KERNEL_DIR := $(KERNEL_CACHE)/linux-6.1-$(KERNEL_FLAVOR)-$(KERNEL_HASH)
KERNEL_STAMP := $(KERNEL_DIR)/.nw-built
KERNEL_BZIMAGE := $(KERNEL_DIR)/arch/x86/boot/bzImage
KERNEL_VMLINUX := $(KERNEL_DIR)/vmlinux
KERNEL_SELFTEST := $(KERNEL_DIR)/tools/testing/selftests/seccomp/seccomp_bpf
KERNEL_VMLINUX_H := $(KERNEL_ROOT)/vmlinux/x86/vmlinux-6.1-seed.h

KERNEL_DEPS := bc bison flex make gcc patch xz-utils rsync python3 util-linux \
	libssl-dev libelf-dev libcap-dev dwarves linux-source-6.1 \
	qemu-system-x86 clang llvm libbpf-dev bpftool pkg-config
KERNEL_SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

# VM side: the guest runs tests/vm/guest-init.sh as init.
VM_BUILD := $(if $(BUILD),$(BUILD),build)
VM_OUT := $(VM_BUILD)/vm
VM_DIR := $(KERNEL_ROOT)/tests/vm
VM_RUNNER := $(VM_DIR)/run-vm.sh
VM_FENTRY := $(VM_OUT)/fentry_check
VM_TIMEOUT ?= 1500
VM_MEM ?= 2G
VM_SMP ?= 2
VM_RUN_BASE ?= $(KERNEL_CACHE)/run
VM_QEMU_ARGS ?=
VM_CLANG ?= clang
VM_BPFTOOL ?= bpftool
VM_CC ?= $(if $(filter default,$(origin CC)),cc,$(CC))
VM_CFLAGS ?= -g -O2
VM_BPF_CFLAGS ?= -g -O2
VM_LIBBPF_LIBS := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz)

VM_ENV = VM_KERNEL='$(KERNEL_BZIMAGE)' VM_ROOT='$(KERNEL_ROOT)' \
	VM_BUILD='$(VM_BUILD)' VM_SELFTEST='$(KERNEL_SELFTEST)' \
	VM_FENTRY='$(abspath $(VM_FENTRY))' VM_FENTRY_FUNCS='$(VM_FENTRY_FUNCS)' \
	VM_TIMEOUT='$(VM_TIMEOUT)' VM_MEM='$(VM_MEM)' VM_SMP='$(VM_SMP)' \
	VM_RUN_BASE='$(VM_RUN_BASE)' VM_QEMU_ARGS='$(VM_QEMU_ARGS)' \
	VM_BTF_EXPECT='$(VM_BTF_EXPECT)' VM_BACKENDS='$(VM_BACKENDS)'

.PHONY: kernel kernel-deps vm-test vm-run vm-shell vmlinux-seed

kernel: $(KERNEL_STAMP)
	@echo "kernel: $(KERNEL_BZIMAGE)"
	@echo "kernel: $(KERNEL_SELFTEST)"

kernel-deps:
	@missing=$$(for p in $(KERNEL_DEPS); do \
		dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -z "$$missing" ]; then \
		echo "kernel-deps: all installed"; \
	else \
		echo "kernel-deps: installing" $$missing; \
		$(KERNEL_SUDO) apt-get update && \
		DEBIAN_FRONTEND=noninteractive $(KERNEL_SUDO) apt-get install -y \
			--no-install-recommends $$missing; \
	fi

$(KERNEL_SOURCE_MK): $(wildcard $(KERNEL_TARBALL))
	@$(MAKE) --no-print-directory -f $(KERNEL_MK_DIR)/kernel.mk kernel-deps
	@mkdir -p $(@D)
	@echo "KERNEL_SOURCE_ID := $$(stat -L -c '%n %s %Y' $(KERNEL_TARBALL))" > $@

# One user of the cache at a time: a build (and its pruning) holds the lock
# exclusively from start to end, a VM shared while it boots from the cache.
# Two builds at once in one tree corrupted it ("nm failed", objtool "Can't
# open kernel/irq/irqdomain.o"). Usage, in one shell: exec 9>LOCK; $(call KERNEL_FLOCK,-x|-s)
KERNEL_LOCK := $(KERNEL_CACHE)/.lock
KERNEL_FLOCK = flock $(1) -n 9 || { \
	echo "kernel: waiting for $(KERNEL_LOCK): another kernel build or VM uses the cache"; \
	flock $(1) 9; }

$(KERNEL_STAMP): | kernel-deps
	@mkdir -p $(KERNEL_CACHE)
	@set -e; exec 9>'$(KERNEL_LOCK)'; $(call KERNEL_FLOCK,-x); \
	if [ -e '$(KERNEL_STAMP)' ]; then \
		echo "kernel: $(KERNEL_DIR) was built meanwhile"; exit 0; \
	fi; \
	KERNEL_JOBS='$(KERNEL_JOBS)' KERNEL_REQUIRE_BTF_FUNC='$(KERNEL_REQUIRE_BTF_FUNC)' \
		$(KERNEL_BUILD_SCRIPT) $(KERNEL_TARBALL) $(KERNEL_DIR) $(KERNEL_CONFIG) $(KERNEL_PATCHES); \
	if [ '$(KERNEL_PRUNE)' = 1 ]; then \
		for d in $(KERNEL_CACHE)/linux-6.1-$(KERNEL_FLAVOR)-*; do \
			case $$d in $(KERNEL_DIR)|$(KERNEL_DIR).log) continue;; esac; \
			echo "kernel: pruning $$d"; rm -rf "$$d"; \
		done; \
	fi

vmlinux-seed: $(KERNEL_VMLINUX_H)

$(KERNEL_VMLINUX_H): $(KERNEL_STAMP)
	@[ '$(KERNEL_FLAVOR)' = seed ] || { echo "vmlinux-seed: needs KERNEL_FLAVOR=seed" >&2; exit 1; }
	$(VM_BPFTOOL) btf dump file $(KERNEL_VMLINUX) format c > $@.tmp
	@grep -q 'bool wait_killable;' $@.tmp || \
		{ echo "vmlinux-seed: $@.tmp has no knotif->wait_killable" >&2; exit 1; }
	@mv $@.tmp $@
	@echo "vmlinux-seed: $@"

# fentry_check: generic fentry/fexit programs, attach target set at run time.
$(VM_OUT):
	@mkdir -p $@

$(VM_OUT)/fentry_check.bpf.o: $(VM_DIR)/fentry_check.bpf.c $(KERNEL_ROOT)/vmlinux/x86/vmlinux.h | $(VM_OUT)
	$(VM_CLANG) $(VM_BPF_CFLAGS) -target bpf -D__TARGET_ARCH_x86 \
		-I$(KERNEL_ROOT)/vmlinux/x86 -c $< -o $@

$(VM_OUT)/fentry_check.skel.h: $(VM_OUT)/fentry_check.bpf.o
	$(VM_BPFTOOL) gen skeleton $< name fentry_check_bpf > $@.tmp
	@mv $@.tmp $@

$(VM_FENTRY): $(VM_DIR)/fentry_check.c $(VM_OUT)/fentry_check.skel.h
	$(VM_CC) -std=gnu11 -Wall -Wextra -Werror $(VM_CFLAGS) -I$(VM_OUT) \
		$< -o $@ $(VM_LIBBPF_LIBS)

vm-test: export VM_GUEST_SUITE = $(NW_GUEST_SUITE)
# the guest runs the host's build/ live: bring it up to date first
VM_TOOLS = $(BUILD)/notifwait $(BUILD)/nw-workload

# The guest boots from the cache: no build may prune it meanwhile.
VM_LOCKED = exec 9>'$(KERNEL_LOCK)'; $(call KERNEL_FLOCK,-s);

vm-test: $(KERNEL_STAMP) $(VM_FENTRY) $(VM_TOOLS)
	@$(VM_LOCKED) $(VM_ENV) $(VM_RUNNER) test

vm-run: export VM_CMD = $(value CMD)
vm-run: $(KERNEL_STAMP) $(VM_TOOLS)
	@$(VM_LOCKED) $(VM_ENV) $(VM_RUNNER) run

vm-shell: $(KERNEL_STAMP) $(VM_TOOLS)
	@$(VM_LOCKED) $(VM_ENV) $(VM_RUNNER) shell
