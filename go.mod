module github.com/wincni/diag

go 1.26.8
