-- Lead table. utf8mb4 with a binary no-pad collation: `oli_id` 'A1' and 'a1 ' are different leads, as
-- they are on SQLite.
CREATE TABLE hold_dialer_master_data (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  oli_id VARCHAR(100) NOT NULL,
  phone_number VARCHAR(15) NOT NULL,
  client_name VARCHAR(150) NOT NULL,
  form_type VARCHAR(255) NOT NULL,
  priority_id INT NOT NULL,
  agent_id INT NULL,
  callback_scheduled_at DATETIME(3) NULL,
  dial_status VARCHAR(20) NOT NULL,
  last_dial_result VARCHAR(40) NULL,
  hangup_by VARCHAR(20) NULL,
  hangup_cause VARCHAR(80) NULL,
  last_attempt_at DATETIME(3) NULL,
  first_attempt_at DATETIME(3) NULL,
  next_retry_at DATETIME(3) NULL,
  call_count INT NOT NULL DEFAULT 0,
  isReserved TINYINT(1) NOT NULL DEFAULT 0,
  isRnrSent TINYINT(1) NOT NULL DEFAULT 0,
  reserved_by VARCHAR(100) NULL,
  reserved_at DATETIME(3) NULL,
  previous_status VARCHAR(20) NULL,
  push_date DATETIME(3) NOT NULL,
  status INT NOT NULL DEFAULT 1,
  created_at DATETIME(3) NOT NULL,
  UNIQUE KEY uq_master_oli_id (oli_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={{bin_collation}};
