# tests/facts/facts.mk: the facts emitter (bpf/facts.bpf.c, issue #14) and
# nw-factdump, which prints its facts and, with --joined, the joiner's
# records: a debugging aid for the emitter. Included by the top-level Makefile.

FACTDUMP_SRCS := tests/facts/factdump.c user/joiner.c user/knotif.c user/knotif_table.c \
	user/key_set.c user/reorder.c user/sup_history.c

$(BUILD)/nw-factdump: $(FACTDUMP_SRCS) $(BUILD)/facts.skel.h $(wildcard user/*.h) bpf/facts.h
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(NW_CFLAGS) $(FACTDUMP_SRCS) -lbpf -lelf -lz -o $@

