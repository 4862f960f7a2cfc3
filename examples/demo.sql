CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT NOT NULL, plan TEXT NOT NULL);
INSERT INTO users(email, plan) VALUES
  ('ada@example.com', 'pro'), ('grace@example.com', 'free'),
  ('linus@example.com', 'free'), ('barbara@example.com', 'pro'),
  ('ken@example.com', 'free');
