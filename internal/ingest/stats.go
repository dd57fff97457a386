package ingest

// Stats counts what an Engine did since it started.
type Stats struct {
	AppendedRows  int64 // rows Append accepted
	AppendedBytes int64 // bytes of values in sealed blocks
	Blocks        int64 // blocks sealed
	SentRows      int64 // rows of blocks the server confirmed
	SentBytes     int64
	SentBlocks    int64
	Retried       int64 // resends of a block after a transport failure
	FailedRows    int64 // rows of blocks that failed for good (given to OnError)
	FailedBlocks  int64
	BufferedBytes int64 // bytes of values sealed and not yet confirmed, plus the open block's last measure
	BufferedRows  int64 // rows appended and not yet confirmed or failed
}
