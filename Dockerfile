# One image for every stripefs process: the MDS, the OSSs and the CLI; docker compose picks the
# process with `command:`. Built in the full image, which has the C compiler for the crc32c addon
# (native/crc32c.c); run from the slim one (same Debian, same glibc) with the compiled JavaScript,
# the contract, the addon and the production dependencies only: no TypeScript, no test tools, no
# compiler (scripts/test-compose.sh prints its size).
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && mkdir -p native/build
RUN npm prune --omit=dev --no-audit --no-fund && rm -rf dist/test dist/bench \
  && find node_modules -maxdepth 1 -type d -empty -delete

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production STRIPEFS_LOG_LEVEL=info
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/proto/stripefs ./proto/stripefs
COPY --from=build /app/native/build ./native/build
COPY --from=build /app/dist ./dist
ENTRYPOINT ["node"]
CMD ["--initial-old-space-size=128", "dist/mds/main.js"]
