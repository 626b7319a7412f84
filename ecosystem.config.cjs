// pm2 process file for paysync. Run all three roles with:
//   pm2 start ecosystem.config.cjs        (then `pm2 save` so they come back after a reboot)
// Configuration comes from PAYSYNC_* variables: put them in a .env file in this folder or in
// the `env` blocks below (secrets belong in .env, which git ignores, not in this file).
//
// Scaling:
// - paysync-receiver is stateless behind a load balancer: raise `instances` (cluster mode
//   shares the port). Each instance commits events to the inbox before answering 2xx. Its ops
//   port (PAYSYNC_OPS_PORT: metrics, dashboard) holds dashboard sessions in each process's
//   memory: with more than one instance add `increment_var: 'PAYSYNC_OPS_PORT'`, so each has
//   its own ops port (scrape each; use one for the dashboard).
// - paysync-worker scales out freely, on this host (`instances`) or on other hosts that share
//   the same Redis and PostgreSQL. With the default SQLite database keep every role on one
//   host; SQLite is not shared across machines.
// - paysync-scheduler runs once per deployment. A second copy is harmless (jobs carry
//   slot-derived ids, so a tick fires once) but useless.
//
// Stopping: pm2 sends SIGINT, then SIGKILL after `kill_timeout`. paysync drains in-flight
// work within its own deadline, which is shorter than kill_timeout below.
const common = {
  script: './bin/paysync.js',
  cwd: __dirname,
  kill_timeout: 35_000,
  max_memory_restart: '512M',
  time: false,
  env: { NODE_ENV: 'production' },
};

module.exports = {
  apps: [
    {
      ...common,
      name: 'paysync-receiver',
      args: 'serve',
      instances: 1,
      exec_mode: 'fork',
    },
    {
      ...common,
      name: 'paysync-worker',
      args: 'work',
      instances: 1,
      exec_mode: 'fork',
    },
    {
      ...common,
      name: 'paysync-scheduler',
      args: 'schedule',
      instances: 1,
      exec_mode: 'fork',
    },
  ],
};
