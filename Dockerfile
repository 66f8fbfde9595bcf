# Multi-stage build: a static arena binary (pure Go, no cgo: the embedded
# SQLite store is modernc.org/sqlite) on a minimal runtime image.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/arena ./cmd/arena

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/arena /usr/local/bin/arena
# The embedded store's default location, when DATABASE_URL is unset.
WORKDIR /var/lib/arena
ENV LISTEN_ADDR=:8080
EXPOSE 8080
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/arena"]
CMD ["serve"]
