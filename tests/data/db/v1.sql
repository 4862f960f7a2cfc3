-- A real v1 audit log, written by the foundation's db.c (commit 5809ebd):
-- sqlite3 .dump plus the two header pragmas that .dump leaves out.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE events( id INTEGER PRIMARY KEY, session INTEGER NOT NULL, call INTEGER, kind TEXT NOT NULL, time TEXT NOT NULL, body TEXT NOT NULL, hash BLOB NOT NULL);
INSERT INTO events VALUES(1,1,NULL,'session_start','2026-11-30T11:19:40.951Z','{"agent":"claude","cwd":"/home/u/proj","host":"vm","mode":"gate","pid":11350,"policy_sha256":"abc123","user":"root","version":"0.1.0"}',X'c2dbb55813365dd9d392cbbefa89ba5203c7b26ba85354736f0f03cf648f8075');
INSERT INTO events VALUES(2,1,2,'received','2026-11-30T11:19:40.956Z','{"id":"c0","input":{"command":"ls -la"},"line":1,"name":"shell","shape":"canonical","summary":"ls -la","tool":"shell"}',X'6546a0e0978ab83a677294bc65d9208ec46a45a0a369ce2012f182f8a2427122');
INSERT INTO events VALUES(3,1,2,'classified','2026-11-30T11:19:40.956Z','{"commands":[],"hosts":[],"reads":[],"reasons":[],"rules":[],"spans":[],"statements":[],"tier":"low","writes":[]}',X'f25eeda835294b4dec8d77d30cb239fc76dc0fcf8463b6e8508831abe28454fb');
INSERT INTO events VALUES(4,1,2,'decided','2026-11-30T11:19:40.956Z','{"action":"auto","decision":"auto","reason":null,"wait_ms":0,"who":"policy"}',X'102de2103a298276e7c5a51ad52bf6d0d0b71c9a11fd03e775aafb169ff74a5a');
INSERT INTO events VALUES(5,1,2,'finished','2026-11-30T11:19:40.956Z','{"applied":"run","cpu_ms":0,"decision":"auto","duration_ms":12,"exit_code":0,"peak_kb":0,"ran":true,"reason":null,"signal":0,"stderr":"","stdout":"ok\n","timed_out":false,"truncated":false}',X'aab498f9b21e1c0927014dce794c64fff10109fdf8bf99952f1b3c0891149372');
INSERT INTO events VALUES(6,1,6,'received','2026-11-30T11:19:40.956Z','{"id":"c1","input":{"command":"rm -rf build"},"line":2,"name":"shell","shape":"canonical","summary":"rm -rf build","tool":"shell"}',X'0fd44a8d291ad453cd1ea91522109dbc7338fc13a21f4c5c1ef2d359a63e9544');
INSERT INTO events VALUES(7,1,6,'classified','2026-11-30T11:19:40.956Z','{"commands":[],"hosts":[],"reads":[],"reasons":["deletes recursively"],"rules":["fs.delete.recursive"],"spans":[[0,5]],"statements":[],"tier":"high","writes":[]}',X'45df4410a67b65666338d7e47df490111c68d9422c8c8e0ef2cd1696c85967e1');
INSERT INTO events VALUES(8,1,6,'decided','2026-11-30T11:19:40.956Z','{"action":"ask","decision":"denied","reason":null,"wait_ms":1500,"who":"user"}',X'aea13697542c2068b0e43a4cdbcc38bc10ea77ab9e406411435c26440a71411d');
INSERT INTO events VALUES(9,1,9,'received','2026-11-30T11:19:40.956Z','{"id":"c2","input":{"command":"curl https://user:hunter2@example.com/x"},"line":3,"name":"shell","shape":"canonical","summary":"curl https://user:hunter2@example.com/x","tool":"shell"}',X'126b96c9eaa429bed952b3faf3b4f25cb64b3c69f33932086bf771ccabe9e11d');
INSERT INTO events VALUES(10,1,9,'classified','2026-11-30T11:19:40.956Z','{"commands":[],"hosts":[],"reads":[],"reasons":[],"rules":[],"spans":[],"statements":[],"tier":"low","writes":[]}',X'5b8d0a320d4e52dfcc38035ea03d84de0f6e3c566302409b0eb62c52ff16c75b');
INSERT INTO events VALUES(11,1,9,'decided','2026-11-30T11:19:40.956Z','{"action":"auto","decision":"auto","reason":null,"wait_ms":0,"who":"policy"}',X'83dbc8c8117deebee89b16d56c50d4408afebe3711f9544ec1a87a822c83e6fc');
INSERT INTO events VALUES(12,1,9,'finished','2026-11-30T11:19:40.957Z','{"applied":"run","cpu_ms":0,"decision":"auto","duration_ms":12,"exit_code":0,"peak_kb":0,"ran":true,"reason":null,"signal":0,"stderr":"","stdout":"ok\n","timed_out":false,"truncated":false}',X'4a2ba0a144482215e53681e27f39c09e9b53dfc760654ecdcde04df6be894412');
INSERT INTO events VALUES(13,1,NULL,'session_end','2026-11-30T11:19:40.957Z','{}',X'56292c07395a7a55437a1dc8ab0a7e8070c3e4205d5619e5e774a72b4c943822');
CREATE INDEX events_call ON events(call);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
CREATE VIEW calls AS SELECT r.id AS id, r.session AS session, r.time AS time, json_extract(r.body, '$.tool') AS tool, json_extract(r.body, '$.summary') AS summary, (SELECT json_extract(body, '$.tier') FROM events WHERE call = r.id   AND kind = 'classified') AS tier, (SELECT json_extract(body, '$.decision') FROM events WHERE call = r.id   AND kind IN ('decided', 'finished') ORDER BY id DESC LIMIT 1) AS decision, (SELECT json_extract(body, '$.exit_code') FROM events WHERE call = r.id   AND kind = 'finished') AS exit_code, (SELECT json_extract(body, '$.duration_ms') FROM events WHERE call = r.id   AND kind = 'finished') AS duration_ms FROM events r WHERE r.kind = 'received';
COMMIT;
PRAGMA application_id = 1095912523;
PRAGMA user_version = 1;
