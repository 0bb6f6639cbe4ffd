//go:build tools

// Package tools pins modules that the project uses before code imports them.
package tools

import (
	_ "github.com/HdrHistogram/hdrhistogram-go"
	_ "github.com/jackc/pgx/v5"
	_ "github.com/schollz/progressbar/v3"
	_ "gonum.org/v1/plot"
	_ "github.com/cockroachdb/datadriven"
	_ "github.com/cockroachdb/pebble/v2"
	_ "github.com/gocql/gocql"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/spf13/cobra"
	_ "go.yaml.in/yaml/v3"
	_ "pgregory.net/rapid"
)
