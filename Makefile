# notifwait: bpf/notifwait.bpf.c -> build/notifwait.bpf.o -> build/notifwait.skel.h
#            user/*.c + skeleton -> build/notifwait
#
#   make            build the tool        make demo   run it on the built-in workload
#   make test       every test (host suite, unit tests, then the patched-kernel VM)
#   make V=1        show the commands
BUILD ?= build
CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
ARCH := x86

ifeq ($(V),1)
Q :=
msg =
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

DEB_PACKAGES := clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev \
	libseccomp-dev uthash-dev pkg-config make gcc \
	python3 libclang-rt-14-dev util-linux golang-go
# --prom-listen's HTTP server; promtool, curl and a strict OpenMetrics parser for its tests
DEB_PACKAGES += libmicrohttpd-dev prometheus curl python3-prometheus-client

WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
NW_CFLAGS := -std=gnu11 $(WARN) -I$(BUILD) -Ibpf -Iuser
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -std=gnu11 $(WARN) \
	-Wno-unused-parameter -Ivmlinux/$(ARCH) -Ibpf
LIBS := -lbpf -lelf -lz -lseccomp -lm
LIBS += -lmicrohttpd

# The reporter's stages; main.c wires them together.
USER_CORE := cli syscalls errnames knotif knotif_table decoder hist stats \
	sinks sink_stream sink_json sink_hist sink_summary json_record json_writer
USER_CORE += metrics prom_http prom_textfile sink_prom
USER_CORE += bound_check sink_bound timeline_svg sink_timeline
USER_BPF := backend backend_tracepoint backend_fentry backend_kprobe command
USER_OBJS := $(patsubst %,$(BUILD)/user/%.o,$(USER_CORE) $(USER_BPF) main)
UNIT_SRCS := $(wildcard tests/unit/*.c)
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

.PHONY: all deps demo test test-host test-unit clean vmlinux format
all: $(BUILD)/notifwait

DEPS_STAMP := $(BUILD)/.deps-installed
deps: $(DEPS_STAMP)
$(DEPS_STAMP): scripts/deps.sh Makefile
	$(Q)mkdir -p $(BUILD)
	$(Q)scripts/deps.sh $(DEB_PACKAGES)
	$(Q)touch $@

$(BUILD)/notifwait.bpf.o: bpf/notifwait.bpf.c $(wildcard bpf/*.h) | $(DEPS_STAMP)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/notifwait.skel.h: $(BUILD)/notifwait.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name notifwait_bpf > $@

$(BUILD)/user/%.o: user/%.c $(wildcard user/*.h) bpf/notifwait.h | $(DEPS_STAMP)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(NW_CFLAGS) -c $< -o $@

$(BUILD)/user/backend.o $(BUILD)/user/backend_kprobe.o $(BUILD)/user/main.o: \
	$(BUILD)/notifwait.skel.h

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
include tests/go/go.mk
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
