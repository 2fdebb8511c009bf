package contacts

import (
	"encoding/csv"
	"fmt"
	"io"
	"net/mail"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
)

type Contact struct {
	Name  string
	Email string
}

type Importer struct {
	wg sync.WaitGroup
}

func readRecords(r *csv.Reader, out chan<- []string) {
	defer close(out)
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return
		}
		if err != nil {
			continue
		}
		out <- rec //stuck:send
	}
}

func (im *Importer) Import(src io.Reader) ([]Contact, error) {
	rows := make(chan []string)
	im.wg.Add(1)
	go func() {
		defer im.wg.Done()
		readRecords(csv.NewReader(src), rows)
	}()
	var contacts []Contact
	for rec := range rows {
		addr, err := mail.ParseAddress(rec[1])
		if err != nil {
			return contacts, fmt.Errorf("row %d: %w", len(contacts)+1, err)
		}
		contacts = append(contacts, Contact{Name: rec[0], Email: addr.Address})
	}
	return contacts, nil
}

func (im *Importer) Close() {
	im.wg.Wait() //stuck:close
}

const sample = `Ada Byron,ada@example.org
Grace H,not-an-address
Edsger D,edsger@example.org
Barbara L,barbara@example.org
`

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	im := &Importer{}
	contacts, err := im.Import(strings.NewReader(sample))
	if err != nil {
		fmt.Fprintln(os.Stderr, "import stopped:", err)
	}
	fmt.Println("imported", len(contacts))
	im.Close()
	<-stop
}
