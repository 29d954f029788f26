# The service's image: the dashboard (next build) and the server (scripts/build-server.mjs) built
# at image build time, run by Node 24 from the `node` npm package as uid 10001; the application
# directory is read-only to it, DATA_DIR is the /data volume. docs/operations.md, Container.
#
# Without registry access, make the base images first: scripts/container-base.sh
#   buildah bud --isolation chroot --layers --format docker -t amp:local .      (or: podman build -t amp:local .)

# --- deps: npm ci (Node 24 and npm 11 of the build image), a layer kept while the lock file is the same
FROM localhost/amp-build:bookworm AS deps
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json ./
COPY packages/sdk/package.json ./packages/sdk/
COPY patches ./patches
RUN npm ci --no-audit --no-fund

# --- runtime-deps: the same node_modules without the development packages (also kept while the
# lock file is the same, so a rebuild after a source change copies none of its files again)
FROM deps AS runtime-deps
RUN npm prune --omit=dev --no-audit --no-fund && rm -rf node_modules/.cache

# --- build: the dashboard (next build), the server bundle and the built-in definitions ------------
FROM deps AS build
COPY . .
# Node 24 from here on: npm scripts and npx put node_modules/.bin (the `node` package) first.
# The built-in definitions are read once here into .amp/cache (src/modules/definitions-cache.ts):
# the service, which cannot write /app, then reads them at each start instead of forking a child.
# Everything but node_modules is then moved to /out, which the runtime stage copies.
RUN NEXT_BUILD_CACHE=0 npm run build \
 && npx node scripts/build-server.mjs \
 && npx node --import tsx --input-type=module -e "await (await import('./src/modules/definitions.ts')).builtinDefinitions()" \
 && rm -rf .next/cache \
 && mkdir /out && find . -mindepth 1 -maxdepth 1 ! -name node_modules -exec mv -t /out {} +

# --- runtime: minbase + ca-certificates, no compiler, no Debian Node -----------------------------
FROM localhost/amp-base:bookworm
RUN useradd --uid 10001 --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin amp \
 && mkdir /data && chown 10001:10001 /data
WORKDIR /app
# Owned by root: the service cannot write into its own code.
COPY --from=runtime-deps /app/node_modules /app/node_modules
COPY --from=build /out /app
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    PORT=3000 \
    DATA_DIR=/data \
    PATH=/app/node_modules/.bin:$PATH
USER 10001:10001
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/api/v1/health/ready`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "scripts/start.mjs"]
