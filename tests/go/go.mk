# tests/go/go.mk: the Go target (tests/go/README.md), built with Debian's
# golang-go from the standard library only: no module is downloaded, the
# caches live under $(BUILD). Included by the top-level Makefile.

BUILD ?= build
GO ?= go
GO_DIR := tests/go
GO_SRCS := $(wildcard $(GO_DIR)/*.go) $(GO_DIR)/go.mod
GO_ENV := GOCACHE=$(abspath $(BUILD))/go/cache GOPATH=$(abspath $(BUILD))/go/path \
	GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GO111MODULE=on GOWORK=off \
	CGO_ENABLED=0

$(BUILD)/go-target: $(GO_SRCS) | $(DEPS_STAMP)
	$(call msg,GO,$@)
	$(Q)mkdir -p $(BUILD)/go
	$(Q)cd $(GO_DIR) && $(GO_ENV) $(GO) build -trimpath -o $(abspath $@) .

# make test / test-host build it when they can: without it (no golang-go)
# the Go tests of tests/integration/suite_go.py skip instead of failing.
.PHONY: go-target-optional
go-target-optional:
	-$(Q)$(MAKE) --no-print-directory $(BUILD)/go-target
test test-host: go-target-optional
