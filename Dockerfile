# syntax=docker/dockerfile:1
#
# mqprobe images. Two targets:
#
#   ibmmq (default)  mqprobe built with -tags ibmmq on IBM's MQ C redistributable
#                    client, which is downloaded and checksum-verified here:
#     docker build --build-arg MQ_CLIENT_SHA256=<sha256 of the tarball> -t mqprobe .
#   embedded         no MQ client (CGO off): embedded queue manager, SQLite/PostgreSQL/DynamoDB
#     docker build --target embedded -t mqprobe:embedded .
#
# `make docker` builds both. Run:
#
#   docker run --rm -p 8080:8080 -e MQPROBE_HTTP_AUTHTOKEN="$(openssl rand -hex 32)" mqprobe:embedded
#   docker run --rm -p 8080:8080 -e MQPROBE_HTTP_AUTHTOKEN=... -e MQPROBE_CONFIG=/etc/mqprobe/aws.yaml \
#     -e AWS_REGION=eu-west-1 mqprobe            # or mount your own file and point MQPROBE_CONFIG at it
#
# Inside a container the API must listen beyond loopback, so the image sets
# MQPROBE_HTTP_ADDR=0.0.0.0:8080, and a non-loopback address requires a bearer
# token: the daemon refuses to start without MQPROBE_HTTP_AUTHTOKEN.
# /health/live and /health/ready need no token. Environment variables override
# the config file, so change the address with -e MQPROBE_HTTP_ADDR, not in the file.

ARG GO_VERSION=1.26
ARG DEBIAN_RELEASE=trixie
ARG MQ_VERSION=9.4.5.0

# The module sources, shared by both builders.
FROM golang:${GO_VERSION}-${DEBIAN_RELEASE} AS source
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .

# IBM MQ C redistributable client. Its checksum is a required build argument:
# IBM publishes the tarball without one, so pin the digest of the file you
# reviewed (curl -fsSL "$MQ_CLIENT_URL" | sha256sum).
FROM golang:${GO_VERSION}-${DEBIAN_RELEASE} AS mqclient
ARG MQ_VERSION
ARG MQ_CLIENT_URL=https://public.dhe.ibm.com/ibmdl/export/pub/software/websphere/messaging/mqdev/redist/${MQ_VERSION}-IBM-MQC-Redist-LinuxX64.tar.gz
ARG MQ_CLIENT_SHA256=
SHELL ["/bin/bash", "-euo", "pipefail", "-c"]
RUN if [ -z "${MQ_CLIENT_SHA256}" ]; then \
      echo "build argument MQ_CLIENT_SHA256 is required: the SHA-256 of ${MQ_CLIENT_URL}" >&2; exit 1; \
    fi; \
    curl -fsSL --retry 3 -o /tmp/mqclient.tar.gz "${MQ_CLIENT_URL}"; \
    echo "${MQ_CLIENT_SHA256}  /tmp/mqclient.tar.gz" | sha256sum -c -; \
    mkdir -p /opt/mqm; \
    tar -xzf /tmp/mqclient.tar.gz -C /opt/mqm; \
    rm /tmp/mqclient.tar.gz
# /opt/mqm keeps the SDK (inc/) for the build. IBM's genmqpkg copies the
# runtime subset the C client needs to /opt/mqm-runtime (lib64, the GSKit
# libraries, CCSID tables, messages, licences): every genmqpkg_inc* choice
# left unset means "leave out" (SDK, samples, admin and RAS tools, 32-bit,
# C++, COBOL, Java, NLS); TLS stays for SSL channels.
RUN genmqpkg_inctls=1 /opt/mqm/bin/genmqpkg.sh -b /opt/mqm-runtime; \
    test -f /opt/mqm-runtime/lib64/libmqm_r.so; \
    test ! -e /opt/mqm-runtime/inc

# mqprobe version prints VERSION, COMMIT, BUILD_DATE and, for the ibmmq
# build, the MQ client version it was built against.
FROM source AS builder
ARG VERSION=dev
ARG COMMIT=
ARG BUILD_DATE=
ARG MQ_VERSION
COPY --from=mqclient /opt/mqm /opt/mqm
ENV CGO_ENABLED=1 \
    CGO_CFLAGS="-I/opt/mqm/inc" \
    CGO_LDFLAGS="-L/opt/mqm/lib64 -Wl,-rpath,/opt/mqm/lib64"
RUN --mount=type=cache,target=/root/.cache/go-build \
    go build -tags ibmmq -trimpath -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.buildDate=${BUILD_DATE} -X main.mqClientVersion=${MQ_VERSION}" -o /out/mqprobe ./cmd/mqprobe

FROM source AS builder-embedded
ARG VERSION=dev
ARG COMMIT=
ARG BUILD_DATE=
RUN --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.buildDate=${BUILD_DATE}" -o /out/mqprobe ./cmd/mqprobe

# What both images share: an unprivileged user whose home holds the SQLite
# store (./data) and the MQ client's data path; group 0 may write too, for
# platforms that run images under an arbitrary uid.
FROM debian:${DEBIAN_RELEASE}-slim AS runtime-base
RUN groupadd --system --gid 10001 mqprobe \
 && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/mqprobe --shell /usr/sbin/nologin mqprobe \
 && mkdir -p /var/lib/mqprobe/data /var/lib/mqprobe/IBM/MQ/data/errors /var/lib/mqprobe/IBM/MQ/data/trace \
 && chown -R 10001:0 /var/lib/mqprobe \
 && chmod -R g=u /var/lib/mqprobe
# Go reads the system roots for AWS endpoints; the slim image has none.
COPY --from=source /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY configs/embedded.yaml configs/aws.yaml /etc/mqprobe/
WORKDIR /var/lib/mqprobe
ENV HOME=/var/lib/mqprobe \
    MQPROBE_HTTP_ADDR=0.0.0.0:8080
EXPOSE 8080
USER 10001:10001
# mqprobe health --live asks /health/live at the configured address
# (http.addr, HTTPS when http.tls is set): no shell or curl needed. Liveness,
# not readiness: a store outage must not get a daemon holding pending
# outcomes restarted (docs/deployment.md).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["/usr/local/bin/mqprobe", "health", "--live"]
ENTRYPOINT ["/usr/local/bin/mqprobe"]
CMD ["run"]

FROM runtime-base AS embedded
COPY --from=builder-embedded /out/mqprobe /usr/local/bin/mqprobe

# The default target: last in the file.
FROM runtime-base AS ibmmq
COPY --from=mqclient /opt/mqm-runtime /opt/mqm
COPY --from=builder /out/mqprobe /usr/local/bin/mqprobe
# The binary's rpath names /opt/mqm/lib64 too; LD_LIBRARY_PATH serves what
# the client loads itself. A non-installed client writes its error logs and
# traces under MQ_OVERRIDE_DATA_PATH.
ENV LD_LIBRARY_PATH=/opt/mqm/lib64 \
    MQ_OVERRIDE_DATA_PATH=/var/lib/mqprobe/IBM/MQ/data
