INSERT IGNORE INTO hold_dialer_priority (id, name, is_active, is_callback, is_dialable) VALUES
  (1, 'Hold Lead', 1, 0, 1),
  (2, 'Hold + Not Connected', 1, 1, 1),
  (3, 'Final Disposal', 1, 0, 0),
  (8, 'Escalated Ticket', 1, 0, 1);
