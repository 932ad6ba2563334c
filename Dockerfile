# syntax=docker/dockerfile:1
# The retrylint container image: the static release binary and Clang's builtin headers (from the
# .deb that scripts/package.sh builds) on Debian 12 slim, with git for --diff, run as a non-root
# user. No compiler or LLVM is in the final image.
#
#   docker build -t retrylint .
#   docker run --rm -u "$(id -u):$(id -g)" -v "$PWD:/src" retrylint .
#
# scripts/test-install.sh runs the same two scripts (package.sh, then image-setup.sh) in clean
# Debian 12 roots made by debootstrap, so what this file runs is tested without a container engine.
FROM debian:12 AS build
WORKDIR /src
COPY . .
RUN scripts/package.sh

FROM debian:12-slim
COPY --from=build /src/dist/ /tmp/dist/
COPY packaging/image-setup.sh /tmp/image-setup.sh
RUN /tmp/image-setup.sh /tmp/dist && rm -rf /tmp/dist /tmp/image-setup.sh
USER 10001:10001
WORKDIR /src
ENTRYPOINT ["retrylint"]
