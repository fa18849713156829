//go:build tools

// Package tools only imports the Jaeger binary's main package, so that
// `go install github.com/jaegertracing/jaeger/cmd/jaeger` resolves it
// through this module's go.mod (with its replace directive).
package tools

import _ "github.com/jaegertracing/jaeger/cmd/jaeger"
