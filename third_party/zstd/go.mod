module github.com/DataDog/zstd

go 1.26.8

require github.com/klauspost/compress v1.20.1
