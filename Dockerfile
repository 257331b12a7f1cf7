# seatbelt's bot as a container image: `docker build -t seatbelt .` (see docs/operations.md).
# Stage 1 builds (TypeScript, better-sqlite3's native module); stage 2 runs as a non-root user with
# only the production dependencies, the journal on a volume, the tokens from the environment.
FROM node:20-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No lifecycle scripts before the sources are in (prepare builds); then the two native ones package.json allows.
RUN npm ci --no-audit --no-fund --ignore-scripts && npm rebuild better-sqlite3 esbuild
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
# ping (iputils), ssh for the GPU and container probes, tini to pass SIGTERM on and reap children.
RUN apt-get update -qq \
  && apt-get install -y -qq --no-install-recommends iputils-ping openssh-client tini ca-certificates \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/seatbelt
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY --from=build /src/runbooks ./runbooks
COPY --from=build /src/drills ./drills
RUN install -d -o node -g node -m 0750 /var/lib/seatbelt
ENV NODE_ENV=production \
    SEAT_JOURNAL=/var/lib/seatbelt/journal.sqlite \
    SEAT_INVENTORY=/etc/seatbelt/inventory.yaml \
    SEAT_HTTP_LISTEN=0.0.0.0:9464
VOLUME ["/var/lib/seatbelt"]
EXPOSE 9464 3000
USER node
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9464/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/src/cli/main.js"]
CMD ["bot"]
