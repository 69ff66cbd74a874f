package models

// The reference vectors `megagit model pull` checks the downloaded model
// of a profile against (Reference): computed with megagit's own embedder
// (documents' side) from ONNX exports of the hub's weights that were
// checked against an independent float64 forward pass, and recorded by
// the lab's refvectors tool (lab/README.md). The tolerances are about
// four times the largest difference an int8 export of the same weights
// shows, and several times below what another model of the same size and
// vocabulary gives.

var miniLMReference = Reference{
	Source: "all-MiniLM-L6-v2 float32 ONNX export of the hub's model.safetensors (sha256 53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db)",
	Sentences: []string{
		"Validate the Stripe webhook signature before trusting the event.",
		"check that an incoming payment notification really came from the provider",
		"my docker build is slow, cache the layers",
		"What a lovely sunny afternoon!",
	},
	Head: [][]float32{
		{-0.10342014, 0.08917712, -0.040347785, -0.06939875, 0.0030772302, -0.032151382, 0.0122573115, -0.03204931, 0.055635635, 0.014868775, -0.019122904, -0.054343473, -0.034658924, 0.036952924, 0.011325212, -0.0078118173},
		{0.002882956, 0.03314293, 0.04425095, -0.028406668, 0.048805613, -0.091437474, 0.12840784, -0.06108899, 0.08346673, 0.0039586276, -0.025278902, -0.018580802, 0.044580527, 0.005093048, -0.06309158, -0.08724973},
		{0.019749759, 0.060159527, 0.052179065, 0.016289424, 0.035713848, -0.10936176, -0.053467106, -0.056939974, 0.048290797, 0.033404797, -0.019560078, -0.03859982, -0.070226006, -0.029156698, -0.03470865, -0.058356766},
		{-0.021252207, 0.11917559, 0.1169762, 0.027567595, 0.034086656, -0.06107894, 0.105986156, -0.08253467, 0.0075461175, -0.017274857, -0.035489526, 0.035131954, 0.037211727, 0.034874123, 0.033744045, 0.10175959},
	},
	Cosines: []float64{0.438200, -0.106267, -0.047933, -0.046202, 0.043496, -0.067293},
	HeadTol: 0.02, CosineTol: 0.03,
}

var mpnetReference = Reference{
	Source: "all-mpnet-base-v2 float32 ONNX export of the hub's model.safetensors (sha256 78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658)",
	Sentences: []string{
		"Validate the Stripe webhook signature before trusting the event.",
		"check that an incoming payment notification really came from the provider",
		"my docker build is slow, cache the layers",
		"What a lovely sunny afternoon!",
	},
	Head: [][]float32{
		{-0.01924149, -0.00561125, 0.06843765, -0.014571683, 0.015238895, 0.0025563831, -0.01034575, -0.0127140675, 0.07060128, 0.040200066, -0.026146956, 0.00803808, 0.036466997, 0.09152418, 0.03541337, 0.06700592},
		{0.008557433, 0.0035669217, 0.021719266, 0.06787607, 0.0122754825, -0.009416811, -0.015623897, 0.007803078, -0.014338184, 0.04512052, 0.024272008, 0.02766848, 0.025124151, -0.00088839856, -0.0033659553, 0.10754903},
		{-0.038332906, -0.0099461395, -0.07047443, -0.0013881124, -0.018082332, 0.028708708, 0.002165351, 0.07212672, 0.00059445365, 0.05255467, 0.006897711, -0.04050293, 0.014011148, -0.05701578, -0.049706314, 0.06726207},
		{-0.051741935, -0.009052508, -0.0078077973, -0.003183219, 0.02292628, -0.0143747125, -0.008573489, 0.0035537751, 0.0132665355, -0.0010626742, -0.04887533, 0.10249072, -0.0032211728, -0.055228468, 0.044490173, -0.09062848},
	},
	Cosines: []float64{0.390137, -0.114538, -0.032895, -0.050370, 0.012345, 0.044309},
	HeadTol: 0.02, CosineTol: 0.03,
}
