#!/usr/bin/env node
// Deterministic benchmark corpora for retrylint (bench/run.sh). Same arguments, same bytes.
//   node bench/gen.js configs N OUTDIR   N config files of mixed dialects, ~half of them retry
//                                        configs, a few percent with findings
//   node bench/gen.js cpp N OUTDIR       N C++ translation units on the usual standard headers,
//                                        5 % with retry loops
'use strict';
const fs = require('fs');
const path = require('path');

// mulberry32: a tiny seeded PRNG, so the corpus never depends on Math.random.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const R = rng(20240607);
const int = (lo, hi) => lo + Math.floor(R() * (hi - lo + 1));
const pick = (xs) => xs[Math.floor(R() * xs.length)];
const words = ['catalog', 'orders', 'payments', 'billing', 'search', 'users', 'cart', 'ledger', 'inventory', 'shipping',
  'reviews', 'auth', 'profile', 'pricing', 'promo', 'notify', 'media', 'reports', 'audit', 'gateway'];
const name = (i) => `${pick(words)}-${i}`;
// Percent of retry configs that carry a deliberate finding.
const FINDING_RATE = 0.06;

// ---- retry dialects: (i, bad) -> [relative path, text] ------------------------------------
function istio(i, bad) {
  const svc = name(i);
  let routes = '';
  for (let r = 0; r < int(2, 6); ++r) {
    routes += `  - name: route-${r}
    match:
    - uri:
        prefix: /api/v${r}/${svc}
      headers:
        x-tenant:
          exact: tenant-${int(1, 99)}
    route:
    - destination:
        host: ${svc}.shop.svc.cluster.local
        subset: v${r}
        port:
          number: 8080
      weight: 100
    timeout: 10s
    retries:
      attempts: ${bad && r === 0 ? 10 : 3}
      perTryTimeout: 2s
      retryOn: connect-failure,refused-stream,unavailable,cancelled,503
`;
  }
  return [`mesh/${svc}/virtualservice.yaml`, `apiVersion: networking.istio.io/v1beta1
kind: VirtualService
metadata:
  name: ${svc}
  namespace: shop
  labels:
    app.kubernetes.io/name: ${svc}
    app.kubernetes.io/part-of: shop
spec:
  hosts:
  - ${svc}.shop.svc.cluster.local
  gateways:
  - mesh
  http:
${routes}`];
}

function envoy(i, bad) {
  const svc = name(i);
  let routes = '';
  for (let r = 0; r < int(2, 5); ++r) {
    routes += `              - match:
                  prefix: "/${svc}/v${r}"
                route:
                  cluster: ${svc}
                  timeout: 10s
                  retry_policy:
                    retry_on: "connect-failure,refused-stream,gateway-error"
                    num_retries: ${bad && r === 0 ? 9 : 2}
                    per_try_timeout: 2s
                    retry_back_off:
                      base_interval: 0.1s
                      max_interval: 1s
`;
  }
  return [`envoy/${svc}.yaml`, `static_resources:
  listeners:
  - name: listener_${i}
    address:
      socket_address:
        address: 0.0.0.0
        port_value: ${int(8000, 9000)}
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: ingress_http
          http_filters:
          - name: envoy.filters.http.router
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
          route_config:
            name: local_route
            virtual_hosts:
            - name: ${svc}
              domains: ["*"]
              routes:
${routes}  clusters:
  - name: ${svc}
    connect_timeout: 0.25s
    circuit_breakers:
      thresholds:
      - priority: DEFAULT
        retry_budget:
          budget_percent: {value: 20.0}
          min_retry_concurrency: 3
    type: STRICT_DNS
    lb_policy: ROUND_ROBIN
    load_assignment:
      cluster_name: ${svc}
      endpoints:
      - lb_endpoints:
        - endpoint:
            address:
              socket_address:
                address: ${svc}
                port_value: 8080
`];
}

function grpc(i, bad) {
  const svc = name(i).replace('-', '');
  const mcs = [];
  for (let m = 0; m < int(1, 4); ++m) {
    mcs.push(`    {
      "name": [{"service": "shop.${svc}.v1.Service${m}", "method": "Get${m}"}],
      "timeout": "10s",
      "retryPolicy": {
        "maxAttempts": ${bad && m === 0 ? 8 : 4},
        "initialBackoff": "0.1s",
        "maxBackoff": "2s",
        "backoffMultiplier": 2,
        "retryableStatusCodes": ["UNAVAILABLE", "RESOURCE_EXHAUSTED"]
      }
    }`);
  }
  return [`grpc/${svc}_service_config.json`, `{
  "loadBalancingConfig": [{"round_robin": {}}],
  "methodConfig": [
${mcs.join(',\n')}
  ],
  "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}
}
`];
}

function stepFunctions(i, bad) {
  const states = [];
  const n = int(3, 8);
  for (let s = 0; s < n; ++s) {
    states.push(`    "Step${s}": {
      "Type": "Task",
      "Resource": "arn:aws:states:::lambda:invoke",
      "Parameters": {"FunctionName": "arn:aws:lambda:eu-west-1:123456789012:function:${name(i)}-${s}", "Payload.$": "$"},
      "TimeoutSeconds": 60,
      "Retry": [
        {
          "ErrorEquals": ["Lambda.ServiceException", "Lambda.TooManyRequestsException", "States.Timeout"],
          "IntervalSeconds": 2,
          "MaxAttempts": 3,
          "BackoffRate": 2,
          "MaxDelaySeconds": 30${bad && s === 0 ? '' : ',\n          "JitterStrategy": "FULL"'}
        }
      ],
      ${s + 1 < n ? `"Next": "Step${s + 1}"` : '"End": true'}
    }`);
  }
  return [`workflows/${name(i)}.asl.json`, `{
  "Comment": "Order pipeline ${i}",
  "StartAt": "Step0",
  "TimeoutSeconds": 3600,
  "States": {
${states.join(',\n')}
  }
}
`];
}

function resilience4j(i, bad) {
  let inst = '';
  for (let k = 0; k < int(1, 4); ++k) {
    inst += `      ${pick(words)}${k}:
        baseConfig: default
        maxAttempts: ${bad && k === 0 ? 12 : 3}
`;
  }
  return [`services/${name(i)}/src/main/resources/application.yml`, `server:
  port: 8080
spring:
  application:
    name: ${name(i)}
  datasource:
    url: jdbc:postgresql://db:5432/shop
    username: shop
management:
  endpoints:
    web:
      exposure:
        include: health,info,prometheus
resilience4j:
  retry:
    configs:
      default:
        maxAttempts: 3
        waitDuration: 500ms
        enableExponentialBackoff: true
        exponentialBackoffMultiplier: 2
        exponentialMaxWaitDuration: 5s
        enableRandomizedWait: true
        randomizedWaitFactor: 0.5
        retryExceptions:
          - java.io.IOException
          - java.util.concurrent.TimeoutException
    instances:
${inst}logging:
  level:
    root: INFO
`];
}

function springGateway(i, bad) {
  let routes = '';
  for (let r = 0; r < int(2, 5); ++r) {
    routes += `        - id: ${pick(words)}-${r}
          uri: lb://${pick(words)}
          predicates:
            - Path=/api/${pick(words)}/**
          filters:
            - StripPrefix=1
            - name: Retry
              args:
                retries: ${bad && r === 0 ? 10 : 3}
                statuses: BAD_GATEWAY, SERVICE_UNAVAILABLE
                methods: GET
                backoff:
                  firstBackoff: 50ms
                  maxBackoff: 500ms
                  factor: 2
                  basedOnPreviousValue: false
                jitter:
                  randomFactor: 0.5
`;
  }
  return [`edge/${name(i)}/application.yml`, `spring:
  application:
    name: edge-${i}
  cloud:
    gateway:
      routes:
${routes}`];
}

function dapr(i, bad) {
  return [`dapr/${name(i)}-resiliency.yaml`, `apiVersion: dapr.io/v1alpha1
kind: Resiliency
metadata:
  name: ${name(i)}
  namespace: shop
spec:
  policies:
    timeouts:
      general: 5s
    retries:
      transient:
        policy: exponential
        maxInterval: 10s
        maxRetries: ${bad ? -1 : 3}
        matching:
          httpStatusCodes: "429,502-504"
  targets:
    apps:
      ${name(i)}:
        timeout: general
        retry: transient
`];
}

function awsConfig(i, bad) {
  let out = `[default]\nregion = eu-west-1\noutput = json\n\n`;
  for (let p = 0; p < int(2, 6); ++p)
    out += `[profile ${pick(words)}-${p}]\nregion = eu-${pick(['west', 'central', 'north'])}-1\nretry_mode = standard\nmax_attempts = ${bad && p === 0 ? 10 : 3}\n\n`;
  return [`accounts/${name(i)}/.aws/config`, out];
}

// ---- files that are no retry config and must be skipped ------------------------------------
function deployment(i) {
  const svc = name(i);
  return [`k8s/${svc}/deployment.yaml`, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${svc}
  namespace: shop
  labels:
    app.kubernetes.io/name: ${svc}
spec:
  replicas: ${int(2, 6)}
  selector:
    matchLabels:
      app.kubernetes.io/name: ${svc}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: ${svc}
    spec:
      containers:
      - name: ${svc}
        image: registry.example.com/shop/${svc}:1.${int(0, 40)}.${int(0, 9)}
        ports:
        - containerPort: 8080
        env:
        - name: LOG_LEVEL
          value: info
        - name: DB_HOST
          value: db.shop.svc.cluster.local
        resources:
          requests:
            cpu: 100m
            memory: 128Mi
          limits:
            cpu: "1"
            memory: 512Mi
        readinessProbe:
          httpGet:
            path: /healthz
            port: 8080
          periodSeconds: 10
          failureThreshold: 3
        livenessProbe:
          httpGet:
            path: /livez
            port: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: ${svc}
  namespace: shop
spec:
  selector:
    app.kubernetes.io/name: ${svc}
  ports:
  - port: 80
    targetPort: 8080
`];
}

function packageJson(i) {
  const deps = [];
  for (let d = 0; d < int(5, 25); ++d) deps.push(`    "${pick(words)}-lib-${d}": "^${int(1, 9)}.${int(0, 20)}.${int(0, 9)}"`);
  return [`web/${name(i)}/package.json`, `{
  "name": "@shop/${name(i)}",
  "version": "1.${int(0, 30)}.0",
  "private": true,
  "scripts": {
    "build": "tsc -p .",
    "test": "jest --ci",
    "lint": "eslint src"
  },
  "dependencies": {
${deps.join(',\n')}
  }
}
`];
}

function compose(i) {
  return [`dev/${name(i)}/docker-compose.yml`, `services:
  app:
    build: .
    ports:
      - "8080:8080"
    depends_on:
      - db
    environment:
      DB_HOST: db
  db:
    image: postgres:16
    healthcheck:
      test: ["CMD", "pg_isready", "-U", "postgres"]
      interval: 5s
      timeout: 3s
      retries: 5
`];
}

function workflow(i) {
  return [`.github/workflows/ci-${i}.yml`, `name: ci
on:
  push:
    branches: [main]
  pull_request:
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - run: npm ci
      - run: npm test -- --shard=${int(1, 4)}/4
`];
}

function configs(n, out) {
  // Weights: what a platform monorepo holds; about half the files are no retry config at all.
  const kinds = [[istio, 10], [envoy, 5], [grpc, 6], [stepFunctions, 5], [resilience4j, 6], [springGateway, 5], [dapr, 4],
    [awsConfig, 4], [deployment, 25], [packageJson, 15], [compose, 8], [workflow, 7]];
  const total = kinds.reduce((s, k) => s + k[1], 0);
  const retryKinds = new Set([istio, envoy, grpc, stepFunctions, resilience4j, springGateway, dapr, awsConfig]);
  let bytes = 0, withFindings = 0;
  for (let i = 0; i < n; ++i) {
    let x = R() * total, kind = kinds[0][0];
    for (const [k, w] of kinds) { if ((x -= w) < 0) { kind = k; break; } }
    const bad = retryKinds.has(kind) && R() < FINDING_RATE;
    if (bad) ++withFindings;
    const [rel, text] = kind(i, bad);
    const p = path.join(out, String(Math.floor(i / 1000)).padStart(3, '0'), rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
    bytes += Buffer.byteLength(text);
  }
  console.error(`configs: ${n} files, ${(bytes / 1e6).toFixed(1)} MB, ${withFindings} seeded with a finding`);
}

// ---- C++ ------------------------------------------------------------------------------------
const HEADERS = ['<vector>', '<string>', '<map>', '<unordered_map>', '<chrono>', '<thread>', '<random>', '<memory>',
  '<algorithm>', '<functional>', '<optional>', '<mutex>', '<iostream>', '<sstream>', '<set>', '<stdexcept>'];

function cppUnit(i, retry, loops) {
  const incs = new Set(['<vector>', '<string>', '<map>']);
  while (incs.size < int(6, 12)) incs.add(pick(HEADERS));
  if (retry) ['<chrono>', '<thread>', '<random>'].forEach((h) => incs.add(h));
  const ns = pick(words).replace('-', '_');
  let body = '';
  for (let f = 0; f < int(4, 10); ++f) {
    body += `
std::map<std::string, int> Tally${f}(const std::vector<Item> &items) {
  std::map<std::string, int> out;
  for (const Item &item : items) {
    if (item.count > ${int(0, 5)}) out[item.name] += item.count;
  }
  return out;
}

std::string Describe${f}(const Item &item) {
  std::string s = item.name;
  s += ":";
  s += std::to_string(item.count * ${int(2, 9)});
  return s.empty() ? std::string("none") : s;
}
`;
  }
  if (loops) body += `
int Checksum(const std::vector<Item> &items) {
  int sum = 0;
  for (size_t i = 0; i < items.size(); ++i) sum += items[i].count * static_cast<int>(i);
  size_t n = items.size();
  while (n > 1) n /= 2;
  return sum + static_cast<int>(n);
}
`;
  if (retry) body += `
bool Send(const Item &item);

bool Deliver(const Item &item) {
  auto delay = std::chrono::milliseconds(100);
  for (int attempt = 0; attempt < ${int(3, 8)}; ++attempt) {
    if (Send(item)) return true;
    std::this_thread::sleep_for(delay);
    delay *= 2;
  }
  return false;
}
`;
  return `// Generated translation unit ${i}.
${[...incs].sort().map((h) => `#include ${h}`).join('\n')}

namespace ${ns}${i} {

struct Item {
  std::string name;
  int count = 0;
};

class Registry {
public:
  void Add(Item item) { items_.push_back(std::move(item)); }
  size_t Size() const { return items_.size(); }
  const std::vector<Item> &Items() const { return items_; }

private:
  std::vector<Item> items_;
};
${body}
} // namespace ${ns}${i}
`;
}

function cpp(n, out) {
  let bytes = 0, retries = 0;
  for (let i = 0; i < n; ++i) {
    const retry = i % 20 === 7; // 5 %
    const loops = !retry && R() < 0.3; // index loops and while loops in 30 % of the others
    if (retry) ++retries;
    const text = cppUnit(i, retry, loops);
    const p = path.join(out, `${retry ? 'retry_' : 'unit_'}${String(i).padStart(4, '0')}.cpp`);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
    bytes += Buffer.byteLength(text);
  }
  console.error(`cpp: ${n} translation units, ${(bytes / 1e6).toFixed(2)} MB, ${retries} with retry loops`);
}

const [what, count, out] = process.argv.slice(2);
if (!what || !count || !out || !['configs', 'cpp'].includes(what)) {
  console.error('usage: node bench/gen.js configs|cpp N OUTDIR');
  process.exit(2);
}
fs.rmSync(out, { recursive: true, force: true });
(what === 'configs' ? configs : cpp)(Number(count), out);
