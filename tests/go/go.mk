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
