#!/usr/bin/env bash
# Installs every Debian 12 package isocheck needs to build and to run its whole
# test suite (as root, or through sudo). Nothing is downloaded from elsewhere.
set -euo pipefail
pkgs=(
  cmake g++ make pkg-config python3 jq
  libgtest-dev libsimdjson-dev libcli11-dev
  libhdf5-dev hdf5-tools libdeflate-dev libjemalloc-dev
  libboost-serialization-dev libcadical-dev
  libopenmpi-dev openmpi-bin
  postgresql libpq-dev
  slurm-wlm munge
)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
echo "isocheck: dependencies installed"
