# syntax=docker/dockerfile:1
# A small image whose entrypoint is gpulint: the static musl binary on an empty base.
#   docker build -t gpulint .
#   docker run --rm -v "$PWD:/src" gpulint check /src
# The release workflow builds the same image for linux/amd64 and linux/arm64 from the static
# binaries it has already built (`--build-arg BINARY=prebuilt`, dist/linux-$TARGETARCH/gpulint)
# and pushes it to ghcr.io/gpulint/gpulint. BuildKit builds only the stage BINARY names.
ARG BINARY=source

# From source. Alpine's Rust targets musl, which links statically by default.
FROM rust:1.90-alpine AS source
RUN apk add --no-cache musl-dev
WORKDIR /build
COPY Cargo.toml Cargo.lock ./
COPY src ./src
COPY crates ./crates
COPY benches ./benches
COPY rules ./rules
RUN cargo build --release --locked -p gpulint --bin gpulint \
    && strip target/release/gpulint \
    && cp target/release/gpulint /gpulint

# The release workflow's static musl binary for the platform being built.
FROM scratch AS prebuilt
ARG TARGETARCH
COPY --chmod=755 dist/linux-${TARGETARCH}/gpulint /gpulint

FROM ${BINARY} AS binary

FROM scratch
LABEL org.opencontainers.image.title="gpulint" \
      org.opencontainers.image.description="A linter for GPU infrastructure: Terraform and Kubernetes" \
      org.opencontainers.image.source="https://github.com/gpulint/gpulint" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY --from=binary /gpulint /gpulint
WORKDIR /src
ENTRYPOINT ["/gpulint"]
CMD ["check", "/src"]
