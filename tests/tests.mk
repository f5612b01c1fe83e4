# tests/tests.mk: the workload and the integration tests; included by the
# top-level Makefile, which defines the rule for $(BUILD)/notifwait.

BUILD ?= build
CC ?= cc

WORKLOAD_DIR := tests/workload
WORKLOAD_SRCS := $(wildcard $(WORKLOAD_DIR)/*.c)
WORKLOAD_HDRS := $(wildcard $(WORKLOAD_DIR)/*.h)
# frame pointers: profilers unwind the supervisor's user stacks by them
WORKLOAD_CFLAGS ?= -std=gnu11 -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror
WORKLOAD_LDLIBS := -lseccomp -lpthread
IT_ARGS ?=

$(BUILD)/nw-workload: $(WORKLOAD_SRCS) $(WORKLOAD_HDRS)
	@mkdir -p $(@D)
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $(WORKLOAD_SRCS) $(WORKLOAD_LDLIBS)

.PHONY: test-integration
test-integration: $(BUILD)/nw-workload $(BUILD)/notifwait
	python3 tests/integration/run.py --build $(BUILD) $(IT_ARGS)

# make test-long: a bounded soak (tests/integration/soak.py), NW_SOAK_S
# seconds (default 240): notifwait's RSS and fd count must stay flat.
NW_SOAK_S ?= 240
.PHONY: test-long
test-long: $(BUILD)/nw-workload $(BUILD)/notifwait
	python3 tests/integration/soak.py --build $(BUILD) --duration $(NW_SOAK_S)

# make test-depth: suite_depth alone (IT_ARGS="--backend B" for one backend).
.PHONY: test-depth
test-depth: $(BUILD)/nw-workload $(BUILD)/notifwait
	python3 tests/integration/run.py --build $(BUILD) --suites depth -k depth_ $(IT_ARGS)
