module example.com/quotehub

go 1.19

require leakscope.local/dumpkit v0.0.0

replace leakscope.local/dumpkit => ../dumpkit
