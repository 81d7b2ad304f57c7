CREATE TABLE dialer_employee (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(150) NOT NULL,
  extension VARCHAR(40) NULL,
  email VARCHAR(254) NULL,
  is_active TINYINT(1) NOT NULL DEFAULT 1,
  presence VARCHAR(16) NOT NULL DEFAULT 'offline',
  panel_seen_at DATETIME(3) NULL,
  wrap_until DATETIME(3) NULL,
  UNIQUE KEY uq_employee_extension (extension)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={{bin_collation}};
