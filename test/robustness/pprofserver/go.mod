module leakscope.local/pprofserver

go 1.19
