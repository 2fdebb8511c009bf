package session

import "syscall"

// The child processes die with the daemon (the sample exits after its dump).
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
