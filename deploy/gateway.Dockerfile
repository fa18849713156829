# The agent-incidents gateway, built from this repository (the package is not published yet).
# deploy/compose.yaml builds it with the repository root as context:
#   docker build -f deploy/gateway.Dockerfile -t agent-incidents-gateway:local .
# The configuration is not baked in: compose mounts deploy/collector/gateway.yaml at
# /app/deploy/collector/gateway.yaml, the path the default command names.
FROM node:20.19.5-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build before the sources are copied.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:20.19.5-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
# node_modules as installed: the CLI loads the OpenTelemetry SDK (a peer and dev dependency) for `demo`,
# and pruning dev dependencies would take it with them.
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
# The persistent queue's parent, owned by the unprivileged user (a named volume mounted here takes
# this ownership on first use).
RUN mkdir -p /app/.agent-incidents /app/deploy/collector && chown node:node /app/.agent-incidents
USER node
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["gateway", "--config", "deploy/collector/gateway.yaml"]
