//go:build !linux

package session

import "syscall"

func dieWithParent() *syscall.SysProcAttr { return nil }
