module leakscope.dev/bench/gen

go 1.19
