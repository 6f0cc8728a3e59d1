# linkerd-doctor in a container: docker build -t linkerd-doctor .
#   docker run --rm -v "$PWD:/work" linkerd-doctor analyze /work/snapshots/
# Stage 1 builds and packs the CLI (`npm pack`, the same tarball that is published to npm);
# stage 2 unpacks only that tarball and installs its runtime dependencies from package-lock.json
# (npm ci --omit=dev), so no compiler, test data or dev dependency ships, and every dependency is
# the version and integrity hash the lockfile pins. No install script runs in either stage. Node 24
# is the current LTS line; the CLI is tested on Node 20, 22 and 24 (.ci/run, docs/install.md).
#
# Both stages start from node:24-slim pinned by digest (the multi-platform index), so a rebuild
# gets the same base until the digest is changed on purpose. To move to a newer base image:
#   docker buildx imagetools inspect node:24-slim    # the "Digest:" line
# and replace the digest in both FROM lines.

FROM node:24-slim@sha256:a9f5f7c91a432850b2a8a7797adf5eadb6c733ceed61167806cee7ea7fbc29df AS build
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

FROM node:24-slim@sha256:a9f5f7c91a432850b2a8a7797adf5eadb6c733ceed61167806cee7ea7fbc29df
ENV NODE_ENV=production NO_UPDATE_NOTIFIER=1
COPY --from=build /tmp/linkerd-doctor.tgz /tmp/linkerd-doctor.tgz
COPY --from=build /src/package-lock.json /tmp/package-lock.json
WORKDIR /opt/linkerd-doctor
RUN tar -xzf /tmp/linkerd-doctor.tgz --strip-components=1 \
 && mv /tmp/package-lock.json . \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && ln -s /opt/linkerd-doctor/bin/run.js /usr/local/bin/linkerd-doctor \
 && rm /tmp/linkerd-doctor.tgz \
 && npm cache clean --force
# The image's own unprivileged user (uid 1000); bundles are read from a mounted /work.
USER node
WORKDIR /work
ENTRYPOINT ["linkerd-doctor"]
CMD ["--help"]
