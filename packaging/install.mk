# packaging/install.mk: make install / uninstall / deb; included by the
# top-level Makefile, which builds $(BUILD)/notifwait.
#
#   make install [PREFIX=/usr/local] [DESTDIR=]   make uninstall (same vars)
#   make deb        $(BUILD)/deb/notifwait_VERSION_ARCH.deb (dpkg-deb)
#   make test-package   tests/package/run.py: install, unit, .deb, docs
#
# PREFIX/lib/systemd/system is on systemd's unit path for /usr/local and
# /usr alike; SYSTEMDUNITDIR=/lib/systemd/system for a distribution's layout.
PREFIX ?= /usr/local
DESTDIR ?=
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/notifwait
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
INSTALL ?= install

INSTALLED_FILES := $(SBINDIR)/notifwait $(MANDIR)/man8/notifwait.8 \
	$(DATADIR)/notifwait.json $(DATADIR)/notifwait.default \
	$(BASHCOMPDIR)/notifwait $(SYSTEMDUNITDIR)/notifwait.service

# Completion from --help's own options: an option added there is completed.
# Built by `make`, so that `make install` as root writes nothing into build/.
all: $(BUILD)/notifwait.bash
$(BUILD)/notifwait.bash: $(BUILD)/notifwait packaging/gen-completion.sh
	$(call msg,GEN,$@)
	$(Q)packaging/gen-completion.sh $(BUILD)/notifwait > $@.tmp
	$(Q)mv $@.tmp $@

.PHONY: install uninstall deb
# The unit names the binary where it is installed (SBINDIR).
install: $(BUILD)/notifwait $(BUILD)/notifwait.bash
	$(INSTALL) -D -m 0755 $(BUILD)/notifwait $(DESTDIR)$(SBINDIR)/notifwait
	$(INSTALL) -D -m 0644 man/notifwait.8 $(DESTDIR)$(MANDIR)/man8/notifwait.8
	$(INSTALL) -D -m 0644 dashboards/notifwait.json $(DESTDIR)$(DATADIR)/notifwait.json
	$(INSTALL) -D -m 0644 packaging/notifwait.default $(DESTDIR)$(DATADIR)/notifwait.default
	$(INSTALL) -D -m 0644 $(BUILD)/notifwait.bash $(DESTDIR)$(BASHCOMPDIR)/notifwait
	$(INSTALL) -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed 's|@SBINDIR@|$(SBINDIR)|g' packaging/notifwait.service.in > $(DESTDIR)$(SYSTEMDUNITDIR)/notifwait.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/notifwait.service

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED_FILES))
	-rmdir $(DESTDIR)$(DATADIR) 2>/dev/null

deb: $(BUILD)/notifwait $(BUILD)/notifwait.bash
	$(Q)packaging/mkdeb.sh $(BUILD)

# The package suite alone (make test runs it too): tests/package/run.py.
.PHONY: test-package
test-package: $(BUILD)/notifwait
	$(Q)python3 tests/package/run.py --build $(BUILD)
