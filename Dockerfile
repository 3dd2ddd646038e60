# One image for every stripefs process: the MDS, the OSSs and the CLI.
# docker compose picks the process with `command:`.
# Built in the full image, which has a C compiler for the crc32c addon
# (native/crc32c.c); run from the slim one (same Debian, same glibc).
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=build /app /app
ENV STRIPEFS_LOG_LEVEL=info
ENTRYPOINT ["node"]
CMD ["dist/mds/main.js"]
