#!/usr/bin/env bash
# Regenerates protobufjs/ and bufbuild/ from proto/ (see README.md). The
# generators are not devDependencies: npx fetches the pinned versions.
set -euo pipefail
cd "$(dirname "$0")"
FILES=(
  proto/opentelemetry/proto/collector/trace/v1/trace_service.proto
  proto/opentelemetry/proto/trace/v1/trace.proto
  proto/opentelemetry/proto/common/v1/common.proto
  proto/opentelemetry/proto/resource/v1/resource.proto
)
rm -rf protobufjs bufbuild
mkdir -p protobufjs
npx --yes --package=protobufjs-cli@2.7.1 --package=protobufjs@8.8.1 -- \
  pbjs -t static-module -w esm --es6 --force-long --no-verify --no-delimited --no-typeurl --no-service \
  -p proto -o protobufjs/otlp-trace.js -d "${FILES[@]}"
npx --yes --package=@bufbuild/buf@1.75.0 --package=@bufbuild/protoc-gen-es@2.17.0 -- buf generate
