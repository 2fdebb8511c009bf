module leakscope.local/bundleprog

go 1.19
