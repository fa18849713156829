// Builds the Jaeger v2 binary (cmd/jaeger) at module version v1.76.0, the
// same commit as Jaeger v2.13.0 (collector-contrib v0.140.1). Used by
// scripts/ci/install-jaeger.sh only when the pinned commit cannot be fetched.
//
// `go install module@v1.76.0` refuses jaeger's own go.mod because it has a
// replace directive, so this wrapper module requires jaeger and repeats that
// replace. go.sum is jaeger v1.76.0's own go.sum (plus the entries the build
// added), so no checksum lookups are needed.
module local/jaegerbuild

go 1.24.6

require github.com/jaegertracing/jaeger v1.76.0

replace github.com/Shopify/sarama => github.com/Shopify/sarama v1.33.0
