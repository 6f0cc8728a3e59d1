# linkerd-doctor in a container: docker build -t linkerd-doctor .
#   docker run --rm -v "$PWD:/work" linkerd-doctor analyze /work/snapshots/
# Stage 1 builds and packs the CLI (`npm pack`, the same tarball that is published to npm);
# stage 2 installs only that tarball and its runtime dependencies (npm install --omit=dev), so no
# compiler, test data or dev dependency ships. Node 24 is the current LTS line; the CLI is tested
# on Node 20, 22 and 24 (.ci/run, docs/install.md).

FROM node:24-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No install scripts: the build needs none, and none should run with the build's privileges.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json LICENSE README.md ./
COPY bin ./bin
COPY scripts/oclif-manifest.js scripts/explain-pages.js scripts/bundle.js ./scripts/
COPY src ./src
COPY docs ./docs
RUN npm run build \
 && npm pack --ignore-scripts --pack-destination /tmp \
 && mv /tmp/linkerd-doctor-*.tgz /tmp/linkerd-doctor.tgz

FROM node:24-slim
ENV NODE_ENV=production NO_UPDATE_NOTIFIER=1
COPY --from=build /tmp/linkerd-doctor.tgz /tmp/linkerd-doctor.tgz
RUN npm install --global --omit=dev --no-audit --no-fund /tmp/linkerd-doctor.tgz \
 && rm /tmp/linkerd-doctor.tgz \
 && npm cache clean --force
# The image's own unprivileged user (uid 1000); bundles are read from a mounted /work.
USER node
WORKDIR /work
ENTRYPOINT ["linkerd-doctor"]
CMD ["--help"]
