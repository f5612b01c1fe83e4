# tests/fuzz/fuzz.mk: libFuzzer targets over recordings (docs/recording.md);
# included by the top-level Makefile.
#   make fuzz               each fuzzer FUZZ_SECONDS (60) from the seed corpus
#   make fuzz-corpus        regenerate tests/fuzz/corpus/ (committed)
# make test runs a short bounded pass: the 'fuzz' suite of scripts/run-tests.sh.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := -O1 -g -fsanitize=fuzzer,address,undefined \
	-fno-omit-frame-pointer -fno-sanitize-recover=all $(NW_CFLAGS)
FUZZ_DIR := tests/fuzz
FUZZ_CORE := $(patsubst %,user/%.c,$(USER_CORE))
FUZZ_HDRS := $(wildcard user/*.h bpf/*.h)

$(BUILD)/fuzz/fuzz_recording: $(FUZZ_DIR)/fuzz_recording.c user/recording.c \
		user/recording_read.c $(FUZZ_HDRS) | $(DEPS_STAMP)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $(filter %.c,$^) -o $@

$(BUILD)/fuzz/fuzz_replay: $(FUZZ_DIR)/fuzz_replay.c $(FUZZ_CORE) \
		$(FUZZ_HDRS) | $(DEPS_STAMP)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $(filter %.c,$^) $(LIBS) -o $@

$(BUILD)/fuzz/make_corpus: $(FUZZ_DIR)/make_corpus.c user/recording.c $(FUZZ_HDRS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(NW_CFLAGS) $(filter %.c,$^) -o $@

FUZZERS := $(BUILD)/fuzz/fuzz_recording $(BUILD)/fuzz/fuzz_replay

.PHONY: fuzz fuzz-build fuzz-corpus
fuzz-build: $(FUZZERS)

fuzz-corpus: $(BUILD)/fuzz/make_corpus
	$(Q)$< $(FUZZ_DIR)/corpus

fuzz: $(FUZZERS)
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) $(FUZZ_DIR)/run-fuzz.sh $(BUILD)

# make test's 'fuzz' suite runs them (FUZZ_TEST_SECONDS, 12 each).
test: $(FUZZERS)
