# One image for every stripefs process: the MDS, the OSSs and the CLI.
# docker compose picks the process with `command:`.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
ENV STRIPEFS_LOG_LEVEL=info
ENTRYPOINT ["node"]
CMD ["dist/mds/main.js"]
