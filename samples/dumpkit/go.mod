module leakscope.local/dumpkit

go 1.19
