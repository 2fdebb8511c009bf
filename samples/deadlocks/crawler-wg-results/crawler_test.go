package crawler

import "testing"

func TestCrawlTwoPages(t *testing.T) {
	pages := New().Crawl([]string{"https://a.example/", "https://b.example/"})
	if len(pages) != 2 {
		t.Fatal(pages)
	}
}
