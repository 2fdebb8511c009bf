// Package ingest runs the daemon's ingest workers, started once by main.
package ingest

// Job is one unit of ingest work.
type Job struct{ Path string }

// Worker handles jobs until the channel is closed.
func Worker(jobs <-chan Job) {
	for {
		j, ok := next(jobs)
		if !ok {
			return
		}
		handle(j)
	}
}

//go:noinline
func next(jobs <-chan Job) (Job, bool) {
	j, ok := <-jobs
	return j, ok
}

//go:noinline
func handle(j Job) { _ = j.Path }
