# notifwait: bpf/facts.bpf.c -> build/facts.bpf.o -> build/facts.skel.h
#            user/*.c + skeleton -> build/notifwait
#
#   make            build the tool        make demo   run it on the built-in workload
#   make test       every test (host suite, unit tests, then the patched-kernel VM)
#   make V=1        show the commands
#   make deps       install the build's Debian packages (make alone only checks them)
#   make install    PREFIX=/usr/local DESTDIR=   make deb   (packaging/install.mk)
BUILD ?= build
CC ?= cc
CLANG ?= clang
# Debian puts bpftool in /usr/sbin, not on a normal user's PATH.
BPFTOOL ?= $(or $(shell command -v bpftool),/usr/sbin/bpftool)

# The vendored CO-RE headers (vmlinux/ARCH/) decide which machines build.
UNAME_M := $(shell uname -m)
ifneq ($(origin ARCH),command line)
ARCH := $(if $(filter x86_64,$(UNAME_M)),x86,$(if $(filter aarch64 arm64,$(UNAME_M)),arm64,$(UNAME_M)))
endif
ifeq ($(wildcard vmlinux/$(ARCH)/vmlinux.h),)
ifneq ($(filter-out clean deps format,$(or $(MAKECMDGOALS),all)),)
$(error notifwait: unsupported architecture $(UNAME_M): no vmlinux/$(ARCH)/vmlinux.h (see vmlinux/README))
endif
endif

# A recipe that fails leaves no half-written target behind.
.DELETE_ON_ERROR:

ifeq ($(V),1)
Q :=
msg =
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# Debian packages. `make` only checks DEB_PACKAGES (what the build needs)
# and stops with one line naming the missing ones; `make deps` and
# `make demo` install them, the test targets install TEST_PACKAGES too.
DEB_PACKAGES := clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev \
	libseccomp-dev uthash-dev pkg-config make gcc
# --supervisor-stacks: user frames through libdwfl (user/symbolize.c)
DEB_PACKAGES += libdw-dev
# --prom-listen's HTTP server
DEB_PACKAGES += libmicrohttpd-dev
# the runner, ASan's runtime, flock for the kernel cache, the Go target;
# promtool, curl and a strict OpenMetrics parser for the metrics tests;
# systemd-analyze, dpkg-shlibdeps, lintian and man for the package suite
TEST_PACKAGES := python3 libclang-rt-14-dev util-linux golang-go \
	prometheus curl python3-prometheus-client \
	systemd dpkg-dev lintian man-db bash-completion
# privilege.c: capabilities of COMMAND and of notifwait after attaching
DEB_PACKAGES += libcap-dev

WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
NW_CFLAGS := -std=gnu11 $(WARN) -I$(BUILD) -Ibpf -Iuser
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -std=gnu11 $(WARN) \
	-Wno-unused-parameter -Ivmlinux/$(ARCH) -Ibpf
LIBS := -lbpf -lelf -lz -lseccomp -lm
LIBS += -lmicrohttpd
# COMMAND's credentials, notifwait's own capabilities (user/privilege.c)
LIBS += -lcap
# user/symbolize.c: libdwfl; -lelf again after it for a static link
LIBS += -ldw -lelf

# The reporter's stages; main.c wires them together.
USER_CORE := cli syscalls errnames knotif knotif_table hist stats findings \
	sinks sink_stream sink_json sink_hist sink_summary json_record json_writer
USER_CORE += metrics prom_http prom_textfile sink_prom
USER_CORE += bound_check sink_bound timeline_svg sink_timeline
# comm escaping; whole-record output with checked writes
USER_CORE += escape output pid_check
# --record, --replay: the facts and ticks the joiner was fed (docs/recording.md)
USER_CORE += recording recording_read replay
# facts -> records (docs/joiner.md)
USER_CORE += joiner key_set reorder
# --supervisor-stacks: addresses -> names, folded stacks (flamegraph.pl's input)
USER_CORE += symbolize folded sup_stacks
# a supervisor thread's switches -> handle_split (and the stacks it blocked in)
USER_CORE += sup_history
USER_BPF := backend backend_facts backend_tracepoint backend_fentry backend_kprobe command run_end privilege
USER_OBJS := $(patsubst %,$(BUILD)/user/%.o,$(USER_CORE) $(USER_BPF) main)
UNIT_SRCS := $(wildcard tests/unit/*.c)
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

.PHONY: all deps demo test test-host test-unit clean vmlinux format
all: $(BUILD)/notifwait

# Every compile waits for deps-check (order-only), which installs for the
# goals that promise it; otherwise the check is here, before any recipe, and
# a missing package is one line. DEPS_STAMP: the name the includes use.
ifneq ($(filter test test-% bench,$(MAKECMDGOALS)),)
DEPS_INSTALL := $(DEB_PACKAGES) $(TEST_PACKAGES)
else ifneq ($(filter deps demo,$(MAKECMDGOALS)),)
DEPS_INSTALL := $(DEB_PACKAGES)
else ifneq ($(filter-out clean format uninstall,$(or $(MAKECMDGOALS),all)),)
DEPS_MISSING := $(shell scripts/deps.sh missing $(DEB_PACKAGES))
ifneq ($(DEPS_MISSING),)
$(error notifwait: missing Debian packages: $(DEPS_MISSING); install them with 'make deps' as root (or sudo))
endif
endif
DEPS_STAMP := deps-check
.PHONY: deps-check
deps: deps-check
deps-check:
	$(if $(DEPS_INSTALL),$(Q)scripts/deps.sh install $(DEPS_INSTALL))

$(BUILD)/facts.bpf.o: bpf/facts.bpf.c | $(DEPS_STAMP)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -c $< -o $@

# Written aside and renamed: an interrupted bpftool leaves no short header.
$(BUILD)/facts.skel.h: $(BUILD)/facts.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name facts_bpf > $@.tmp
	$(Q)mv $@.tmp $@

$(BUILD)/user/%.o: user/%.c | $(DEPS_STAMP)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(NW_CFLAGS) -MMD -MP -c $< -o $@

# Header dependencies, as the compiler saw them (-MMD -MP).
-include $(USER_OBJS:.o=.d) $(BUILD)/facts.bpf.d

$(BUILD)/user/backend_facts.o $(BUILD)/user/backend_kprobe.o: $(BUILD)/facts.skel.h

$(BUILD)/notifwait: $(USER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LIBS) -o $@

# Unit tests of the reporter's stages that need no kernel, under ASan+UBSan.
$(BUILD)/unit-tests: $(UNIT_SRCS) $(wildcard tests/unit/*.h) $(patsubst %,user/%.c,$(USER_CORE)) $(wildcard user/*.h) | $(DEPS_STAMP)
	$(call msg,CC-SAN,$@)
	$(Q)$(CC) -O1 -g $(SAN) $(NW_CFLAGS) -Itests/unit $(UNIT_SRCS) $(patsubst %,user/%.c,$(USER_CORE)) $(LIBS) -o $@

test-unit: $(BUILD)/unit-tests
	$(Q)$<

include tests/tests.mk
include tests/fuzz/fuzz.mk
include tests/facts/facts.mk
include tests/go/go.mk
go-target-optional: | $(DEPS_STAMP)
include packaging/install.mk
# In the VM: the integration suite once per backend (fentry loads there).
NW_GUEST_SUITE ?= bash tests/vm/guest-suite.sh
-include kernel-patches/kernel.mk

demo: $(BUILD)/notifwait $(BUILD)/nw-workload
	$(Q)scripts/demo.sh $(BUILD)

test-host: $(BUILD)/notifwait $(BUILD)/nw-workload $(BUILD)/unit-tests
	$(Q)NW_SUITES="unit integration" scripts/run-tests.sh $(BUILD)

test: $(BUILD)/notifwait $(BUILD)/nw-workload $(BUILD)/unit-tests $(BUILD)/loops
	$(Q)scripts/run-tests.sh $(BUILD)

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/$(ARCH)/vmlinux.h
	$(MAKE) --no-print-directory vmlinux-seed

format:
	clang-format -i bpf/*.c bpf/*.h user/*.c user/*.h tests/unit/*.c tests/unit/*.h

clean:
	rm -rf $(BUILD)

# The workload (tests/tests.mk) needs libseccomp-dev like the tool.
$(BUILD)/nw-workload: | $(DEPS_STAMP)

$(BUILD)/loops: bench/loops.c | $(DEPS_STAMP)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -std=gnu11 $(WARN) $< -o $@

.PHONY: bench vm-bench
bench: $(BUILD)/notifwait $(BUILD)/nw-workload $(BUILD)/loops
	$(Q)bench/bench.sh $(BUILD)

# part 6 of make bench: the ratios per backend in the 6.1 guests
vm-bench: $(BUILD)/notifwait $(BUILD)/nw-workload $(BUILD)/loops
	$(Q)bench/vm-bench.sh $(BUILD)
