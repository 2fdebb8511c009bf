// Driver of the planted bug: a channel's name resolution is built for a host name and closed when
// the channel shuts down. With the planted patch Close no longer cancels the resolver's context,
// which is the only thing the watcher goroutine selects on to stop; Close then waits for it
// forever (d.wg.Wait). Copied into google.golang.org/grpc/internal/resolver/dns by
// samples/planted/regenerate.sh.
package dns_test

import (
	"testing"

	"google.golang.org/grpc/internal/resolver/dns"
	"google.golang.org/grpc/resolver"
)

// addrs records what the resolver reports, like a ClientConn would.
type addrs struct {
	resolver.ClientConn
	updates chan error
}

func (a *addrs) UpdateState(s resolver.State) { a.updates <- nil }
func (a *addrs) ReportError(err error)        { a.updates <- err }

func TestShutdownClosesResolver(t *testing.T) {
	cc := &addrs{updates: make(chan error, 1)}
	r, err := dns.NewBuilder().Build(resolver.Target{Endpoint: "localhost:50051"}, cc, resolver.BuildOptions{DisableServiceConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	<-cc.updates
	r.Close()
}
