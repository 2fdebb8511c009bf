module leakscope.local/liveprog

go 1.19
