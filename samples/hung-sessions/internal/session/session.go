// Package session serves streaming exec sessions: each runs a child process
// and three goroutines (stdout copy, stdin feed, process wait) that end only
// when the process exits or the client hangs up and the session is closed.
package session

import (
	"io"
	"os"
	"os/exec"
	"sync"
)

// Server holds the open sessions.
type Server struct {
	mu       sync.Mutex
	sessions []*Session
}

// Session is one client's running command.
type Session struct {
	cmd    *exec.Cmd
	stdout *os.File // read end of the process's stdout
	stdin  *os.File // write end of the process's stdin
	in     *buffer  // the client's input
	out    counter  // the client's output
}

type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

func NewServer() *Server { return &Server{} }

// Exec starts name with args for a client and the session's goroutines.
func (srv *Server) Exec(name string, args ...string) error {
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command(name, args...)
	cmd.Stdin, cmd.Stdout = inR, outW
	cmd.SysProcAttr = dieWithParent()
	if err := cmd.Start(); err != nil {
		return err
	}
	outW.Close()
	inR.Close()
	s := &Session{cmd: cmd, stdout: outR, stdin: inW, in: newBuffer()}
	srv.mu.Lock()
	srv.sessions = append(srv.sessions, s)
	srv.mu.Unlock()
	go s.pump()
	go s.feed()
	go s.wait()
	return nil
}

// pump copies the process's output to the client.
func (s *Session) pump() {
	io.Copy(&s.out, s.stdout)
}

// feed copies the client's input to the process.
func (s *Session) feed() {
	buf := make([]byte, 4096)
	for {
		n, err := s.in.Read(buf)
		if err != nil {
			s.stdin.Close()
			return
		}
		if _, err := s.stdin.Write(buf[:n]); err != nil {
			return
		}
	}
}

// wait reaps the process when it exits.
func (s *Session) wait() {
	s.cmd.Wait()
}
