"""What is kept of calls: the history (each dispatch's record and the book that bounds it), the agents'
activity log, a resumed task's entry."""
