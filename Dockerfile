# syntax=docker/dockerfile:1
# Multi-stage: build TypeScript and pre-bundle the workflow code, then ship only dist/ and
# production dependencies on a glibc image (the native @temporalio/core-bridge needs glibc).
# dist/ holds the files the CLI reads at run time too (migrations, console, the Temporal dynamic
# config under dist/deploy/): `npm run build` copies them (bin/runtime-assets.js).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm run bundle:workflows

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
USER node
CMD ["node", "bin/convengine.js", "--help"]
