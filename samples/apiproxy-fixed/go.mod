module example.com/apiproxy

go 1.19

require (
	golang.org/x/sync v0.1.0
	leakscope.local/dumpkit v0.0.0
)

replace (
	golang.org/x/sync => ./third_party/golang.org/x/sync
	leakscope.local/dumpkit => ../dumpkit
)
